use std::path::PathBuf;

use super::*;

fn hook(event: HookEvent, fail_closed: bool) -> Hook {
    Hook {
        event,
        matcher: None,
        command: "./hook.sh".into(),
        timeout_secs: 5,
        fail_closed,
        confined: false,
        origin: PathBuf::from("config.json"),
    }
}

fn ran(code: Option<i32>, stdout: &str, stderr: &str) -> Result<InputRun, String> {
    Ok(InputRun {
        exit_code: code,
        timed_out: code.is_none(),
        stdout: stdout.into(),
        stderr: stderr.into(),
    })
}

fn verdict(event: HookEvent, fail_closed: bool, run: Result<InputRun, String>) -> Verdict {
    let mut v = Verdict::default();
    v.absorb(event, &hook(event, fail_closed), run);
    v
}

#[test]
fn exit_2_blocks_with_stderr_and_other_codes_only_warn_unless_fail_closed() {
    let pre = HookEvent::PreToolUse;
    let blocked = verdict(pre, false, ran(Some(2), "", "no rm here\n"));
    assert_eq!(blocked.block.as_deref(), Some("no rm here"));
    let warned = verdict(pre, false, ran(Some(1), "", "oops\nmore"));
    assert_eq!(warned.block, None);
    assert_eq!(
        warned.notices,
        vec!["PreToolUse hook `./hook.sh` exited with 1: oops"]
    );
    let closed = verdict(pre, true, ran(None, "", ""));
    assert!(closed.block.unwrap().contains("timed out after 5 s"));
}

#[test]
fn json_answers_deny_ask_change_the_input_and_add_context() {
    let pre = HookEvent::PreToolUse;
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "Database writes are not allowed"}}"#;
    assert_eq!(
        verdict(pre, false, ran(Some(0), deny, "")).block.as_deref(),
        Some("Database writes are not allowed")
    );
    let ask = r#"{"hookSpecificOutput": {"permissionDecision": "ask", "updatedInput": {"command": "ls"}, "additionalContext": "ctx"}}"#;
    let v = verdict(pre, false, ran(Some(0), ask, ""));
    assert!(v.ask && v.block.is_none());
    assert_eq!(v.updated_input.unwrap()["command"], "ls");
    assert_eq!(v.context, vec!["ctx".to_string()]);
    let allow =
        r#"{"hookSpecificOutput": {"permissionDecision": "allow"}, "systemMessage": "checked"}"#;
    let v = verdict(pre, false, ran(Some(0), allow, ""));
    assert!(v.block.is_none() && !v.ask);
    assert_eq!(v.notices, vec!["checked".to_string()]);
    let stop = r#"{"continue": false, "stopReason": "Build failed, fix errors before continuing"}"#;
    assert_eq!(
        verdict(HookEvent::Stop, false, ran(Some(0), stop, ""))
            .block
            .as_deref(),
        Some("Build failed, fix errors before continuing")
    );
}

#[test]
fn plain_stdout_is_context_only_for_a_prompt_or_a_session_start() {
    let text = ran(Some(0), "Reminder: use Bun.\n", "");
    let prompt = verdict(HookEvent::UserPromptSubmit, false, text.clone());
    assert_eq!(prompt.context, vec!["Reminder: use Bun.".to_string()]);
    let start = verdict(HookEvent::SessionStart, false, text.clone());
    assert_eq!(start.context.len(), 1);
    assert!(
        verdict(HookEvent::PostToolUse, false, text)
            .context
            .is_empty()
    );
}

#[test]
fn a_json_answer_that_does_not_parse_is_a_failure_and_blocks_when_failing_closed() {
    let cut = ran(
        Some(0),
        r#"{"hookSpecificOutput": {"permissionDecision": "de"#,
        "",
    );
    let open = verdict(HookEvent::PreToolUse, false, cut.clone());
    assert!(open.block.is_none() && open.notices[0].contains("does not parse"));
    assert!(verdict(HookEvent::PreToolUse, true, cut).block.is_some());
}
