//! Hunk-by-hunk review over ACP, for a client that says it can (`"tunacode/hunkReview": true` in
//! its capabilities' `_meta`): an edit's permission request gets an "Allow selected hunks" option and
//! lists the hunks in its `_meta` (`tunacode/hunks`: index, file, `@@` line, text); choosing it, the
//! client names the accepted indices in the outcome's `_meta` (`tunacode/hunks`, and optionally
//! `tunacode/note`). ACP has no standard way to accept part of an edit; other clients see the
//! usual options only.

use agent_client_protocol::v1::schema::{Meta, PermissionOption, PermissionOptionKind};
use serde_json::{Value, json};
use tunacode_core::ApprovalAnswer;
use tunacode_protocol::{HunkSelection, diff_hunks};

/// The capability a client sets to be offered hunk review.
pub(crate) const OFFER_KEY: &str = "tunacode/hunkReview";
/// The option that accepts the hunks the client names.
pub(crate) const ALLOW_HUNKS: &str = "allow_hunks";
const HUNKS_KEY: &str = "tunacode/hunks";
const NOTE_KEY: &str = "tunacode/note";

/// Whether a client's capabilities' `_meta` asks for hunk review.
pub(crate) fn offered(meta: Option<&Meta>) -> bool {
    meta.and_then(|m| m.get(OFFER_KEY)).and_then(Value::as_bool) == Some(true)
}

/// The option that writes only the hunks the client names.
pub(crate) fn option() -> PermissionOption {
    PermissionOption::new(
        ALLOW_HUNKS,
        "Allow selected hunks",
        PermissionOptionKind::AllowOnce,
    )
}

/// The request's `_meta`: the hunks of `preview`, numbered as the answer names them.
pub(crate) fn request_meta(preview: &str) -> Meta {
    let hunks: Vec<Value> = diff_hunks(preview)
        .iter()
        .enumerate()
        .map(|(index, h)| {
            let header = h.text.lines().next().unwrap_or_default();
            json!({"index": index, "file": h.file, "header": header, "text": h.text})
        })
        .collect();
    let mut meta = Meta::new();
    meta.insert(HUNKS_KEY.into(), Value::Array(hunks));
    meta
}

/// The answer to "Allow selected hunks": the indices the outcome's `_meta` names; refused when it
/// names none (nothing is written that the user did not pick).
pub(crate) fn answer(meta: Option<&Meta>) -> ApprovalAnswer {
    let accepted: Option<Vec<usize>> = meta
        .and_then(|m| m.get(HUNKS_KEY))
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_u64)
                .filter_map(|i| usize::try_from(i).ok())
                .collect()
        });
    let note = meta
        .and_then(|m| m.get(NOTE_KEY))
        .and_then(Value::as_str)
        .map(str::to_string);
    match accepted {
        Some(accepted) => ApprovalAnswer::AllowHunks(HunkSelection {
            accepted,
            edited: Vec::new(),
            note,
        }),
        None => ApprovalAnswer::Deny {
            note: Some("the editor chose \"selected hunks\" but named none".into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hunks_are_listed_and_the_chosen_ones_read_back() {
        let preview = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-x\n+y\n@@ -9 +9 @@\n-p\n+q\n";
        let meta = request_meta(preview);
        let hunks = meta[HUNKS_KEY].as_array().unwrap();
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[1]["header"], "@@ -9 +9 @@");
        assert_eq!(hunks[1]["file"], "a.txt");
        let mut chosen = Meta::new();
        chosen.insert(HUNKS_KEY.into(), json!([1]));
        chosen.insert(NOTE_KEY.into(), json!("keep x"));
        assert_eq!(
            answer(Some(&chosen)),
            ApprovalAnswer::AllowHunks(HunkSelection {
                accepted: vec![1],
                edited: vec![],
                note: Some("keep x".into()),
            })
        );
        assert!(matches!(answer(None), ApprovalAnswer::Deny { .. }));
        let mut offer = Meta::new();
        offer.insert(OFFER_KEY.into(), json!(true));
        assert!(offered(Some(&offer)) && !offered(None));
    }
}
