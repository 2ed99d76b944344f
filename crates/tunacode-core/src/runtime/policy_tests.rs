use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::mpsc;

use super::*;
use crate::events::EventSink;
use crate::runtime::events::RuntimeEvent;

fn request(tool: &str, args: serde_json::Value, kind: ToolKind) -> ApprovalRequest {
    ApprovalRequest {
        tool_call_id: "c1".into(),
        tool_name: tool.into(),
        args,
        kind,
        preview: None,
        targets: Vec::new(),
        hook_asks: false,
        hunks: 0,
        subagent: None,
    }
}

fn policy(interactive: bool) -> (Arc<Policy>, mpsc::UnboundedReceiver<RuntimeEvent>) {
    let (events, rx) = EventSink::channel();
    let policy = Policy::new(
        Questions::new(events),
        &["todo_like".to_string()],
        false,
        interactive,
    );
    (Arc::new(policy), rx)
}

/// Waits for the next question and answers it.
async fn answer_next(
    policy: &Policy,
    rx: &mut mpsc::UnboundedReceiver<RuntimeEvent>,
    answer: ApprovalAnswer,
) -> ApprovalQuestion {
    loop {
        match rx.recv().await {
            Some(RuntimeEvent::Question(q)) => {
                let QuestionKind::Approval(approval) = q.kind.clone() else {
                    panic!("{q:?}")
                };
                policy
                    .questions
                    .answer(&q.id, Answer::Approval(answer))
                    .unwrap();
                return approval;
            }
            Some(_) => continue,
            None => panic!("no question"),
        }
    }
}

#[tokio::test]
async fn allow_session_covers_the_same_command_prefix_only() {
    let (policy, mut rx) = policy(true);
    let cargo = request(
        "bash",
        json!({"command": "cargo test -p a"}),
        ToolKind::Execute,
    );
    let asking = tokio::spawn({
        let p = policy.clone();
        let r = cargo.clone();
        async move { p.approve(&r).await }
    });
    let question = answer_next(&policy, &mut rx, ApprovalAnswer::AllowSession).await;
    assert_eq!(
        question.scope,
        SessionScope::CommandPrefix(vec!["cargo".into(), "test".into()])
    );
    assert!(!question.reason.is_empty());
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);

    let again = request(
        "bash",
        json!({"command": "cargo test --all"}),
        ToolKind::Execute,
    );
    assert_eq!(policy.approve(&again).await, ApprovalDecision::Approve);

    let other = request(
        "bash",
        json!({"command": "cargo publish"}),
        ToolKind::Execute,
    );
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&other).await }
    });
    answer_next(
        &policy,
        &mut rx,
        ApprovalAnswer::Deny {
            note: Some("not now".into()),
        },
    )
    .await;
    assert_eq!(
        asking.await.unwrap(),
        ApprovalDecision::Deny {
            reason: "not now".into()
        }
    );
    policy.reset_session();
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&again).await }
    });
    answer_next(&policy, &mut rx, ApprovalAnswer::AllowOnce).await;
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
}

#[tokio::test]
async fn ignore_list_and_yolo_approve_headless_denies_and_stops() {
    let (policy, _rx) = policy(false);
    let ignored = request("todo_like", json!({}), ToolKind::Write);
    assert_eq!(policy.approve(&ignored).await, ApprovalDecision::Approve);
    let write = request("write_file", json!({"file_path": "a"}), ToolKind::Write);
    assert_eq!(
        policy.approve(&write).await,
        ApprovalDecision::Deny {
            reason: HEADLESS_DENIAL.into()
        }
    );
    let report = ProgressReport {
        iterations: 1,
        max_iterations: 1,
        original_query: "q".into(),
        summary: "s".into(),
    };
    assert_eq!(
        policy.on_iteration_limit(&report).await,
        LimitDecision::Stop
    );
    assert_eq!(policy.review_plan("p").await, PlanDecision::Stop);
    policy.set_yolo(true);
    assert_eq!(policy.approve(&write).await, ApprovalDecision::Approve);
    assert_eq!(policy.review_plan("p").await, PlanDecision::Approve);
}

#[tokio::test]
async fn a_question_withdrawn_or_closed_is_announced() {
    let (policy, mut rx) = policy(true);
    let write = request("write_file", json!({"file_path": "a"}), ToolKind::Write);
    let asking = tokio::spawn({
        let p = policy.clone();
        async move { p.approve(&write).await }
    });
    let id = match rx.recv().await {
        Some(RuntimeEvent::Question(q)) => q.id,
        other => panic!("{other:?}"),
    };
    assert!(matches!(
        policy
            .questions
            .answer(&id, Answer::Limit(LimitDecision::Stop)),
        Err(crate::runtime::OpFailure::WrongAnswer(_))
    ));
    policy.stop_asking();
    assert!(
        matches!(rx.recv().await, Some(RuntimeEvent::QuestionClosed { id: closed }) if closed == id)
    );
    assert_eq!(
        asking.await.unwrap(),
        ApprovalDecision::Deny {
            reason: HEADLESS_DENIAL.into()
        }
    );
    assert!(matches!(
        policy
            .questions
            .answer(&id, Answer::Approval(ApprovalAnswer::AllowOnce)),
        Err(crate::runtime::OpFailure::UnknownQuestion(_))
    ));
}

fn guarded(
    interactive: bool,
    rules: tunacode_store::PermissionsConfig,
) -> (Arc<Policy>, mpsc::UnboundedReceiver<RuntimeEvent>) {
    let (events, rx) = EventSink::channel();
    let policy = Policy::new(Questions::new(events), &[], true, interactive)
        .with_rules(Permissions::parse(&rules).unwrap(), Path::new("/work/p"));
    policy.set_sandbox(SandboxState {
        mode: SandboxMode::WorkspaceWrite,
        enforced: true,
    });
    (Arc::new(policy), rx)
}

fn rules(allow: &[&str], ask: &[&str], deny: &[&str]) -> tunacode_store::PermissionsConfig {
    let list = |r: &[&str]| r.iter().map(|s| s.to_string()).collect();
    tunacode_store::PermissionsConfig {
        allow: list(allow),
        ask: list(ask),
        deny: list(deny),
        ..Default::default()
    }
}

#[tokio::test]
async fn dangerous_commands_ask_once_even_in_yolo_and_are_refused_headless() {
    let rm = request("bash", json!({"command": "rm -rf ~"}), ToolKind::Execute);
    let (policy, mut rx) = guarded(true, rules(&[], &[], &[]));
    let asking = tokio::spawn({
        let (p, r) = (policy.clone(), rm.clone());
        async move { p.approve(&r).await }
    });
    let question = answer_next(&policy, &mut rx, ApprovalAnswer::AllowSession).await;
    assert!(question.once_only, "only this call can be allowed");
    assert!(
        question.reason.contains("home directory"),
        "{}",
        question.reason
    );
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
    // "Always" counted as once: it asks again.
    let again = tokio::spawn({
        let (p, r) = (policy.clone(), rm.clone());
        async move { p.approve(&r).await }
    });
    answer_next(&policy, &mut rx, ApprovalAnswer::AllowOnce).await;
    assert_eq!(again.await.unwrap(), ApprovalDecision::Approve);

    let (headless, _rx) = guarded(false, rules(&[], &[], &[]));
    let ApprovalDecision::Deny { reason } = headless.approve(&rm).await else {
        panic!("refused headless")
    };
    assert!(
        reason.contains("home directory") && reason.contains("permissions.allow"),
        "{reason}"
    );
    let (allowed, _rx) = guarded(false, rules(&["bash(rm -rf ~)"], &[], &[]));
    assert_eq!(
        allowed.approve(&rm).await,
        ApprovalDecision::Approve,
        "a rule names it"
    );
}

#[tokio::test]
async fn rules_deny_before_yolo_ask_even_for_reads_and_the_sandbox_is_never_lifted_silently() {
    let (policy, _rx) = guarded(
        false,
        rules(&["bash"], &["bash(git log:*)"], &["bash(git push:*)"]),
    );
    assert!(matches!(
        policy.gate("bash", &json!({"command": "git push origin main"})),
        Gate::Refuse(r) if r.contains("git push:*")
    ));
    assert_eq!(
        policy.gate("bash", &json!({"command": "git log -3"})),
        Gate::Ask
    );
    assert_eq!(
        policy.gate("read_file", &json!({"file_path": "a"})),
        Gate::Pass
    );
    let ask = request("bash", json!({"command": "git log -3"}), ToolKind::ReadOnly);
    assert!(
        matches!(policy.approve(&ask).await, ApprovalDecision::Deny { .. }),
        "asks: refused headless"
    );
    let outside = request(
        "bash",
        json!({"command": "make install", "outside_sandbox": true}),
        ToolKind::Execute,
    );
    let ApprovalDecision::Deny { reason } = policy.approve(&outside).await else {
        panic!("yolo and an allow rule do not lift the sandbox")
    };
    assert!(
        reason.contains("outside the workspace-write sandbox"),
        "{reason}"
    );
    let plain = request("bash", json!({"command": "make"}), ToolKind::Execute);
    assert_eq!(policy.approve(&plain).await, ApprovalDecision::Approve);
}

#[tokio::test]
async fn without_landlock_every_command_asks_once_and_none_runs_headless() {
    let (policy, mut rx) = guarded(true, rules(&["bash(make)"], &[], &[]));
    policy.set_sandbox(SandboxState {
        mode: SandboxMode::WorkspaceWrite,
        enforced: false,
    });
    let make = request("bash", json!({"command": "make"}), ToolKind::Execute);
    let asking = tokio::spawn({
        let (p, r) = (policy.clone(), make.clone());
        async move { p.approve(&r).await }
    });
    let question = answer_next(&policy, &mut rx, ApprovalAnswer::AllowOnce).await;
    assert!(
        question.once_only && question.reason.contains("no Landlock"),
        "{question:?}"
    );
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
    let write = request("write_file", json!({"file_path": "a"}), ToolKind::Write);
    assert_eq!(
        policy.approve(&write).await,
        ApprovalDecision::Approve,
        "yolo still covers file tools"
    );

    let (headless, _rx) = guarded(false, rules(&[], &[], &[]));
    headless.set_sandbox(SandboxState {
        mode: SandboxMode::WorkspaceWrite,
        enforced: false,
    });
    assert!(
        matches!(headless.approve(&make).await, ApprovalDecision::Deny { reason } if reason.contains("--sandbox off"))
    );
}

/// A call of `tool` that changes `rel` in the workspace of [`guarded`].
fn changing(tool: &str, rel: &str) -> ApprovalRequest {
    ApprovalRequest {
        targets: vec![Path::new("/work/p").join(rel)],
        ..request(tool, json!({"file_path": rel}), ToolKind::Write)
    }
}

#[tokio::test]
async fn a_protected_path_asks_once_even_in_yolo_and_past_session_allowances() {
    let (policy, mut rx) = guarded(true, rules(&[], &[], &[]));
    assert!(policy.yolo());
    let plain = changing("write_file", "src/a.rs");
    assert_eq!(policy.approve(&plain).await, ApprovalDecision::Approve);

    let hook = changing("write_file", ".git/hooks/pre-commit");
    for answer in [ApprovalAnswer::AllowSession, ApprovalAnswer::AllowOnce] {
        let asking = tokio::spawn({
            let (p, r) = (policy.clone(), hook.clone());
            async move { p.approve(&r).await }
        });
        let question = answer_next(&policy, &mut rx, answer).await;
        assert!(question.once_only, "no \"Always\" for a protected path");
        assert!(
            question.reason.contains(
                "`.git/hooks/pre-commit` is protected: `.git/hooks` decides what git runs"
            ),
            "{}",
            question.reason
        );
        assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
    }

    // "Always" for write_file on an ordinary file does not cover a protected one either.
    policy.set_yolo(false);
    let asking = tokio::spawn({
        let (p, r) = (policy.clone(), plain.clone());
        async move { p.approve(&r).await }
    });
    let question = answer_next(&policy, &mut rx, ApprovalAnswer::AllowSession).await;
    assert!(!question.once_only);
    assert_eq!(asking.await.unwrap(), ApprovalDecision::Approve);
    let mcp = changing("write_file", ".mcp.json");
    let asking = tokio::spawn({
        let (p, r) = (policy.clone(), mcp.clone());
        async move { p.approve(&r).await }
    });
    let question = answer_next(
        &policy,
        &mut rx,
        ApprovalAnswer::Deny {
            note: Some("no".into()),
        },
    )
    .await;
    assert!(question.once_only && question.reason.contains("`.mcp.json`"));
    assert_eq!(
        asking.await.unwrap(),
        ApprovalDecision::Deny {
            reason: "no".into()
        }
    );
}

#[tokio::test]
async fn a_protected_path_is_refused_headless_with_yes_unless_a_rule_names_it() {
    let patch = ApprovalRequest {
        targets: vec![
            Path::new("/work/p/src/a.rs").to_path_buf(),
            Path::new("/work/p/.git/hooks/post-checkout").to_path_buf(),
        ],
        ..request("apply_patch", json!({"input": "…"}), ToolKind::Write)
    };
    let hook = changing("write_file", ".git/hooks/pre-commit");
    let (headless, _rx) = guarded(false, rules(&["write_file", "apply_patch(**)"], &[], &[]));
    for call in [&hook, &patch] {
        let ApprovalDecision::Deny { reason } = headless.approve(call).await else {
            panic!("yolo (--yes) and a rule for every file do not pass a protected path")
        };
        assert!(
            reason.contains("is protected") && reason.contains("terminal"),
            "{reason}"
        );
        assert!(reason.contains("permissions.allow"), "{reason}");
    }
    let (named, _rx) = guarded(
        false,
        rules(
            &[
                "write_file(.git/hooks/pre-commit)",
                "apply_patch(.git/hooks/*)",
            ],
            &[],
            &[],
        ),
    );
    assert_eq!(named.approve(&hook).await, ApprovalDecision::Approve);
    assert_eq!(named.approve(&patch).await, ApprovalDecision::Approve);
    let other_hook = changing("write_file", ".git/hooks/pre-push");
    assert!(
        matches!(
            named.approve(&other_hook).await,
            ApprovalDecision::Deny { .. }
        ),
        "the rule names one hook, not every hook"
    );

    let (denied, _rx) = guarded(
        false,
        rules(&["write_file(.mcp.json)"], &[], &["write_file(.mcp.json)"]),
    );
    let ApprovalDecision::Deny { reason } =
        denied.approve(&changing("write_file", ".mcp.json")).await
    else {
        panic!("deny wins")
    };
    assert!(
        reason.contains("Refused by the permission rule"),
        "{reason}"
    );
}
