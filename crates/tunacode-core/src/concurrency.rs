//! The whole tool-concurrency policy, on one screen.
//!
//! - Calls run in the order the model wrote them, split into segments.
//! - A run of consecutive read-only calls is one segment whose calls run in parallel, at most
//!   `max_parallel` at once (`TUNACODE_MAX_PARALLEL`, default: the CPU count).
//! - A write or execute call is a segment of its own: it runs alone, after everything before it and
//!   before everything after it, so a read after a write sees the write.
//! - Results are returned in call order whatever order the calls finish in.
//! - Once the request is cancelled no call starts; a running call is stopped and recorded as cancelled.

use tunacode_protocol::ToolCallPart;
use tunacode_tools::ToolKind;

/// Calls that run together.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment<'a> {
    /// Read-only calls run in parallel.
    Parallel(Vec<&'a ToolCallPart>),
    /// One write or execute call, run alone.
    Exclusive(&'a ToolCallPart),
}

impl Segment<'_> {
    /// The calls of this segment, in order.
    pub fn calls(&self) -> Vec<&ToolCallPart> {
        match self {
            Segment::Parallel(calls) => calls.clone(),
            Segment::Exclusive(call) => vec![call],
        }
    }
}

/// Splits calls into segments. `kind_of` gives what one call may do (a tool's kind, refined by its
/// arguments: a `bash` call running `ls` only reads); `None` for an unknown tool, which is answered
/// without running and so may share a parallel segment.
pub fn plan_segments<'a>(
    calls: &'a [ToolCallPart],
    kind_of: impl Fn(&ToolCallPart) -> Option<ToolKind>,
) -> Vec<Segment<'a>> {
    let mut segments = Vec::new();
    let mut reads: Vec<&ToolCallPart> = Vec::new();
    for call in calls {
        match kind_of(call) {
            Some(ToolKind::Write | ToolKind::Execute) => {
                if !reads.is_empty() {
                    segments.push(Segment::Parallel(std::mem::take(&mut reads)));
                }
                segments.push(Segment::Exclusive(call));
            }
            Some(ToolKind::ReadOnly) | None => reads.push(call),
        }
    }
    if !reads.is_empty() {
        segments.push(Segment::Parallel(reads));
    }
    segments
}

/// The default parallelism: `TUNACODE_MAX_PARALLEL` when set to a positive number, else the CPU count.
pub fn default_max_parallel() -> usize {
    std::env::var("TUNACODE_MAX_PARALLEL")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(4, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tunacode_protocol::Part;

    fn calls(names: &[&str]) -> Vec<ToolCallPart> {
        names
            .iter()
            .enumerate()
            .map(
                |(i, n)| match Part::tool_call(format!("c{i}"), *n, json!({})) {
                    Part::ToolCall(c) => c,
                    _ => unreachable!(),
                },
            )
            .collect()
    }

    fn kind(call: &ToolCallPart) -> Option<ToolKind> {
        match call.tool_name.as_str() {
            "read_file" | "grep" => Some(ToolKind::ReadOnly),
            "write_file" => Some(ToolKind::Write),
            "bash" => Some(ToolKind::Execute),
            _ => None,
        }
    }

    #[test]
    fn reads_share_writes_are_exclusive_and_order_is_kept() {
        let calls = calls(&[
            "read_file",
            "grep",
            "write_file",
            "bash",
            "read_file",
            "nope",
        ]);
        let plan = plan_segments(&calls, kind);
        let shape: Vec<Vec<&str>> = plan
            .iter()
            .map(|s| s.calls().iter().map(|c| c.tool_call_id.as_str()).collect())
            .collect();
        assert_eq!(
            shape,
            vec![vec!["c0", "c1"], vec!["c2"], vec!["c3"], vec!["c4", "c5"]]
        );
        assert!(matches!(plan[0], Segment::Parallel(_)));
        assert!(matches!(plan[1], Segment::Exclusive(_)));
    }
}
