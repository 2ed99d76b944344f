use serde_json::json;

use super::*;

fn watch() -> LoopWatch {
    LoopWatch::new(LoopDetectionConfig::default())
}

fn seen<'a>(tool: &'a str, args: &'a Value, result: &'a str) -> SeenCall<'a> {
    SeenCall {
        tool,
        args,
        changes: tool != "read_file" && tool != "grep",
        failed: false,
        result,
    }
}

#[test]
fn the_same_call_with_the_same_result_three_times_is_a_loop_whatever_the_key_order() {
    let mut w = watch();
    let a = json!({"file_path": "src/lib.rs", "offset": 1});
    let b = json!({"offset": 1, "file_path": "src/lib.rs"});
    assert_eq!(w.call(&seen("read_file", &a, "fn main() {}")), None);
    assert_eq!(w.call(&seen("read_file", &b, "fn main() {}")), None);
    let sign = w.call(&seen("read_file", &a, "fn main() {}"));
    assert_eq!(
        sign,
        Some(LoopSign::RepeatedCall {
            tool: "read_file".into(),
            times: 3
        })
    );
}

#[test]
fn a_cycle_of_two_calls_is_caught() {
    let mut w = watch();
    let read = json!({"file_path": "a.rs"});
    let list = json!({"directory": "."});
    let mut signs = Vec::new();
    for _ in 0..3 {
        signs.push(w.call(&seen("read_file", &read, "same")));
        signs.push(w.call(&seen("grep", &list, "same list")));
    }
    assert!(signs[..4].iter().all(Option::is_none));
    assert!(signs[4].is_some(), "{signs:?}");
}

#[test]
fn the_same_command_after_a_real_edit_is_new_work_even_when_it_prints_the_same() {
    let mut w = watch();
    let test = json!({"command": "cargo test"});
    for n in 0..30 {
        let edit =
            json!({"file_path": format!("src/m{n}.rs"), "old_string": "a", "new_string": "b"});
        assert_eq!(
            w.call(&seen("update_file", &edit, "updated")),
            None,
            "edit {n}"
        );
        assert_eq!(
            w.call(&seen("bash", &test, "exit code: 0\nok")),
            None,
            "test {n}"
        );
    }
}

#[test]
fn the_same_command_with_no_edit_in_between_is_a_loop() {
    let mut w = watch();
    let test = json!({"command": "cargo test"});
    assert_eq!(w.call(&seen("bash", &test, "exit code: 101\nFAILED")), None);
    assert_eq!(w.call(&seen("bash", &test, "exit code: 101\nFAILED")), None);
    assert!(
        w.call(&seen("bash", &test, "exit code: 101\nFAILED"))
            .is_some()
    );
}

#[test]
fn a_result_that_changes_is_no_loop() {
    let mut w = watch();
    let test = json!({"command": "cargo test"});
    for n in 0..10 {
        let out = format!("exit code: 101\n{n} tests failed");
        assert_eq!(w.call(&seen("bash", &test, &out)), None);
    }
}

#[test]
fn the_same_error_with_varied_arguments_is_a_loop_on_the_fourth() {
    let mut w = watch();
    let mut signs = Vec::new();
    for name in ["a.rs", "b.rs", "src/c.rs", "lib/d.rs"] {
        let args = json!({"file_path": name});
        let error = format!("File not found: {name} (checked 12 paths)");
        let call = SeenCall {
            failed: true,
            ..seen("read_file", &args, &error)
        };
        signs.push(w.call(&call));
    }
    assert!(signs[..3].iter().all(Option::is_none), "{signs:?}");
    match &signs[3] {
        Some(LoopSign::RepeatedError { tool, times, error }) => {
            assert_eq!((tool.as_str(), *times), ("read_file", 4));
            assert!(error.starts_with("File not found: lib/d.rs"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn different_errors_are_no_loop() {
    let mut w = watch();
    for (n, error) in [
        "no such file",
        "permission denied",
        "is a directory",
        "bad utf-8",
    ]
    .iter()
    .enumerate()
    {
        let args = json!({"file_path": format!("f{n}")});
        let call = SeenCall {
            failed: true,
            ..seen("read_file", &args, error)
        };
        assert_eq!(w.call(&call), None);
    }
}

#[test]
fn the_same_answer_three_times_is_a_loop() {
    let mut w = watch();
    let text = "I have fixed the bug in the parser and all the tests pass now.";
    assert_eq!(w.text(text), None);
    assert_eq!(w.text(&format!("  {text}\n")), None);
    assert!(matches!(
        w.text(text),
        Some(LoopSign::RepeatedText { times: 3, .. })
    ));
}

#[test]
fn one_line_over_and_over_in_a_response_is_a_loop_and_a_few_repeats_are_not() {
    let mut w = watch();
    let line = "Let me check the configuration file again, carefully this time.";
    let few = format!("{line}\nfirst\n{line}\nsecond\n{line}");
    assert_eq!(w.text(&few), None);
    let many = [line; 12].join("\n");
    assert!(matches!(
        w.text(&many),
        Some(LoopSign::RepeatedText { times: 12, .. })
    ));
}

#[test]
fn short_texts_and_a_disabled_watch_say_nothing() {
    let mut w = watch();
    for _ in 0..5 {
        assert_eq!(w.text("Done."), None);
    }
    let config = LoopDetectionConfig {
        enabled: false,
        ..LoopDetectionConfig::default()
    };
    let mut off = LoopWatch::new(config);
    let args = json!({"command": "ls"});
    for _ in 0..10 {
        assert_eq!(off.call(&seen("bash", &args, "same")), None);
    }
}

#[test]
fn clearing_starts_the_count_again() {
    let mut w = watch();
    let args = json!({"command": "make"});
    w.call(&seen("bash", &args, "same"));
    w.call(&seen("bash", &args, "same"));
    w.clear();
    assert_eq!(w.call(&seen("bash", &args, "same")), None);
    assert_eq!(w.call(&seen("bash", &args, "same")), None);
    assert!(w.call(&seen("bash", &args, "same")).is_some());
}

#[test]
fn calls_older_than_the_window_are_forgotten() {
    let config = LoopDetectionConfig {
        window: 4,
        ..LoopDetectionConfig::default()
    };
    let mut w = LoopWatch::new(config);
    let same = json!({"file_path": "a"});
    for n in 0..12 {
        let other = json!({"file_path": format!("other{n}")});
        assert_eq!(w.call(&seen("read_file", &same, "x")), None);
        assert_eq!(w.call(&seen("read_file", &other, "y")), None);
        assert_eq!(w.call(&seen("grep", &other, "z")), None);
    }
}

#[test]
fn refusals_are_not_errors_of_the_model() {
    let mut w = watch();
    for n in 0..6 {
        let args = json!({"command": format!("rm -rf build{n}")});
        let call = SeenCall {
            failed: true,
            ..seen("bash", &args, "The user did not allow this call: no")
        };
        assert_eq!(w.call(&call), None, "call {n}");
    }
}

#[test]
fn a_short_preamble_said_again_and_again_is_no_loop() {
    let mut w = watch();
    for _ in 0..6 {
        assert_eq!(w.text("Let me run the tests again."), None);
    }
}
