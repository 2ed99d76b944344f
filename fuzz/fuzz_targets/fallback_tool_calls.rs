//! The parser of tool calls written as text (Qwen, Hermes/Llama, JSON blocks) on arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let calls = tunacode_core::fallback_parse::parse_tool_calls_from_text(text, |name| {
            matches!(name, "read_file" | "bash" | "grep" | "write_file")
        });
        for call in calls {
            assert!(!call.tool_name.is_empty());
        }
    }
});
