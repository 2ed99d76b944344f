//! Applying an update's hunks to a file's text, in memory. Each hunk's lines are looked for from where
//! the previous hunk ended (after its `@@` anchor line, when it has one): exactly first, then ignoring
//! trailing whitespace, then ignoring leading and trailing whitespace.

use super::parse::Hunk;

/// The ways lines may be compared, strictest first.
const FUZZ: [fn(&str, &str) -> bool; 3] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
];

/// Where `needle` occurs in `lines` at or after `from` (the last occurrence when `at_end`), with the
/// strictest comparison that finds it.
fn find(lines: &[String], needle: &[String], from: usize, at_end: bool) -> Option<usize> {
    if needle.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - needle.len();
    for same in FUZZ {
        let matches_at = |i: usize| needle.iter().zip(&lines[i..]).all(|(n, l)| same(l, n));
        if at_end {
            if last_start >= from && matches_at(last_start) {
                return Some(last_start);
            }
            continue;
        }
        if let Some(i) = (from..=last_start).find(|&i| matches_at(i)) {
            return Some(i);
        }
    }
    None
}

/// `content` with `hunks` applied; the error names the path and the hunk that did not match.
pub(crate) fn apply_hunks(content: &str, hunks: &[Hunk], path: &str) -> Result<String, String> {
    let ends_with_newline = content.is_empty() || content.ends_with('\n');
    let mut lines: Vec<String> = content.lines().map(str::to_string).collect();
    let mut pos = 0;
    for hunk in hunks {
        if let Some(anchor) = &hunk.anchor {
            let at = find(&lines, std::slice::from_ref(anchor), pos, false).ok_or_else(|| {
                format!("in `{path}`, the line `@@ {anchor}` was not found; nothing was changed")
            })?;
            pos = at + 1;
        }
        if hunk.old.is_empty() {
            let at = if hunk.at_end { lines.len() } else { pos };
            lines.splice(at..at, hunk.new.iter().cloned());
            pos = at + hunk.new.len();
            continue;
        }
        let Some(at) = find(&lines, &hunk.old, pos, hunk.at_end) else {
            let first = hunk
                .old
                .iter()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(&hunk.old[0]);
            return Err(format!(
                "in `{path}`, the hunk whose first line is `{}` does not match the file (compared \
                 exactly, then ignoring whitespace); nothing was changed. Read the file again and \
                 send the patch with its current lines",
                first.trim_end()
            ));
        };
        lines.splice(at..at + hunk.old.len(), hunk.new.iter().cloned());
        pos = at + hunk.new.len();
    }
    let mut out = lines.join("\n");
    if ends_with_newline && !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(anchor: Option<&str>, old: &[&str], new: &[&str]) -> Hunk {
        Hunk {
            anchor: anchor.map(str::to_string),
            old: old.iter().map(|s| s.to_string()).collect(),
            new: new.iter().map(|s| s.to_string()).collect(),
            at_end: false,
        }
    }

    #[test]
    fn hunks_apply_in_order_with_anchors_and_whitespace_fuzz() {
        let text = "fn a() {\n    1\n}\nfn b() {\n    1\n}\n";
        let out = apply_hunks(
            text,
            &[
                hunk(Some("fn b() {"), &["    1"], &["    2"]),
                hunk(None, &["}  "], &["} // b"]),
            ],
            "x.rs",
        )
        .expect("applies");
        assert_eq!(out, "fn a() {\n    1\n}\nfn b() {\n    2\n} // b\n");
    }

    #[test]
    fn a_hunk_that_does_not_match_names_itself() {
        let err =
            apply_hunks("a\nb\n", &[hunk(None, &["c"], &["d"])], "f.txt").expect_err("no match");
        assert!(
            err.contains("in `f.txt`, the hunk whose first line is `c`"),
            "{err}"
        );
        let err =
            apply_hunks("a\n", &[hunk(Some("zzz"), &[], &["x"])], "f.txt").expect_err("anchor");
        assert!(err.contains("`@@ zzz` was not found"), "{err}");
    }

    #[test]
    fn pure_insertions_and_end_of_file() {
        let mut at_end = hunk(None, &["b"], &["b", "c"]);
        at_end.at_end = true;
        assert_eq!(
            apply_hunks("b\na\nb\n", &[at_end], "f").expect("ok"),
            "b\na\nb\nc\n"
        );
        assert_eq!(
            apply_hunks("", &[hunk(None, &[], &["x"])], "f").expect("ok"),
            "x\n"
        );
    }
}
