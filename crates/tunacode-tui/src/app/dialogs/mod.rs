//! Dialogs for the runtime's questions, one type each: [`ApprovalDialog`] (a write or command, with
//! its diff or command line: Yes, Always — for what the runtime's scope covers —, or No with a note),
//! [`LimitDialog`] (the choice at the iteration limit), [`BudgetDialog`] (raise a spend cap or
//! stop), [`LoopDialog`] (the model repeats itself: continue, stop, or stop watching) and [`PlanDialog`] (approve a plan or reject it
//! with feedback). Each handles its own keys and draws itself; the app sends the answer to the runtime
//! with the question's id.

mod approval;
mod budget;
mod frame;
mod hunk_review;
mod limit;
mod loop_dialog;
mod plan;
mod question_dialog;

#[cfg(test)]
mod hunk_review_tests;

use tunacode_core::{Question, QuestionKind};

pub use approval::ApprovalDialog;
pub use budget::BudgetDialog;
pub use limit::LimitDialog;
pub use loop_dialog::LoopDialog;
pub use plan::PlanDialog;
pub use question_dialog::{DialogOutcome, QuestionDialog};

/// The dialog for a question.
pub fn dialog_for(question: Question) -> Box<dyn QuestionDialog> {
    match question.kind {
        QuestionKind::Approval(a) => Box::new(ApprovalDialog::new(question.id, a)),
        QuestionKind::IterationLimit(report) => Box::new(LimitDialog::new(question.id, report)),
        QuestionKind::PlanReview { plan } => Box::new(PlanDialog::new(question.id, plan)),
        QuestionKind::Budget(budget) => Box::new(BudgetDialog::new(question.id, budget)),
        QuestionKind::Loop(question_) => Box::new(LoopDialog::new(question.id, question_)),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
