//! The config loader on arbitrary text: a config or an error naming the position, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = tunacode_store::UserConfig::parse(std::path::Path::new("fuzz.json"), text);
    }
});
