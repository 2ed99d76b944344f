//! Reading the stream-json input of `tunacode run --input-format stream-json` from stdin: each line
//! becomes a runtime operation (the protocol crate's `stream` module reads it). A line that cannot be
//! read is reported (an `error` line) and skipped; the session goes on.

use tokio::io::{AsyncBufReadExt, BufReader};
use tunacode_core::{Op, RuntimeHandle};
use tunacode_protocol::stream::parse_line;

/// Reads stdin until it closes, submitting each line's operation; then `SetInteractive(false)` and
/// `Finish`. Lines that cannot
/// be read are reported through `report` (as `error` lines).
pub async fn feed_stdin(
    runtime: RuntimeHandle,
    report: tokio::sync::mpsc::UnboundedSender<String>,
) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut number = 0usize;
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                let _ = report.send(input_error(number + 1, &e.to_string()));
                break;
            }
        };
        number += 1;
        if line.trim().is_empty() {
            continue;
        }
        match parse_line(&line) {
            Ok(op) => runtime.submit(op),
            Err(message) => {
                let _ = report.send(input_error(number, &message));
            }
        }
    }
    // Nobody is left to answer questions; what is queued still runs.
    runtime.submit(Op::SetInteractive { on: false });
    runtime.submit(Op::Finish);
}

fn input_error(line: usize, message: &str) -> String {
    format!("stdin line {line}: {message}")
}
