//! The session loader (this version's and the seeds' format, and the Python TunaCode 0.2.x format,
//! converted) on arbitrary bytes; what loads must serialise again.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(file) = tunacode_store::parse_session(data) {
        let again = serde_json::to_vec(&file).expect("a loaded session serialises");
        let _ = tunacode_store::parse_session(&again).expect("a saved session loads");
    }
});
