//! The gemini stream decoder: SSE framing, the wire format's decoder and the response assembler on
//! arbitrary bytes must never panic (an error is fine).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tunacode_llm::WireApi;

fuzz_target!(|data: &[u8]| {
    let _ = tunacode_llm::decode_response(WireApi::Gemini, data);
});
