//! The project's checks (issue "proof of done", point 1): which ones apply (`resolve.rs`: the user's
//! `settings.checks`, and a repository's `.tunacode/checks.json` once the user approved that
//! content), running one the way `bash` runs the model's commands (`run.rs`), what a run says that
//! the baseline did not (`compare.rs`), an answer that claims tests pass (`claims.rs`), and the
//! checks `/init` proposes from the repository's build files (`propose.rs`). The request's proof
//! step (`orchestrator/proof.rs`) decides when they run.

mod approval;
mod claims;
mod compare;
mod init_prompt;
mod propose;
mod resolve;
mod run;

pub use approval::{approve_project_checks, describe_checks};
pub use claims::claims_tests_pass;
pub use compare::new_failures;
pub use init_prompt::init_prompt;
pub use propose::propose_checks;
pub use resolve::{CHECKS_FILE, ResolvedChecks, resolve_checks};
pub use run::{CheckRun, output_tail, run_check};
pub use tunacode_store::{CheckKind, CheckSpec, CheckWhen, ChecksConfig};
