//! Whether arguments read as text can be kept as they were read. serde_json's raw reader checks
//! only the syntax, so a text could hold what a reader of values refuses or reads another way: a
//! lone surrogate (`"\ud800"`), a number past `f64` (`1e400`), nesting past serde_json's depth
//! limit, or a key twice (a tool sees its last value; the text would send both). Such a text, and
//! one with whitespace between its tokens, goes through a value instead: refused as it always was,
//! or written as serde_json writes values.
//!
//! Written by hand: one pass over the bytes, where parsing would build the tree kept text avoids.

/// Open containers followed (deeper arguments go through a value).
const MAX_DEPTH: usize = 16;
/// Object keys followed at once (more go through a value).
const MAX_KEYS: usize = 32;

/// Whether JSON `text` (its syntax checked) is compact and holds nothing listed above.
pub(crate) fn kept_as_read(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut keys: [&str; MAX_KEYS] = [""; MAX_KEYS];
    let mut kept = 0;
    // Each open container: whether it is an object, and where its keys start in `keys`.
    let mut open: [(bool, usize); MAX_DEPTH] = [(false, 0); MAX_DEPTH];
    let mut depth = 0;
    let mut key_next = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                if depth == MAX_DEPTH {
                    return false;
                }
                key_next = bytes[i] == b'{';
                open[depth] = (key_next, kept);
                depth += 1;
            }
            b'}' | b']' => {
                let Some(up) = depth.checked_sub(1) else {
                    return false;
                };
                depth = up;
                kept = open[depth].1;
                key_next = false;
            }
            b',' => key_next = depth > 0 && open[depth - 1].0,
            b'"' => {
                let Some(end) = string_end(bytes, i) else {
                    return false;
                };
                if key_next {
                    let key = &text[i..=end];
                    if kept == MAX_KEYS || keys[open[depth - 1].1..kept].contains(&key) {
                        return false;
                    }
                    keys[kept] = key;
                    kept += 1;
                    key_next = false;
                }
                i = end;
            }
            // An exponent (`true` and `false` hold an `e` after a letter, not a digit).
            b'e' | b'E' if i > 0 && bytes[i - 1].is_ascii_digit() => return false,
            b' ' | b'\n' | b'\r' | b'\t' => return false,
            _ => {}
        }
        i += 1;
    }
    true
}

/// Where the string starting at `start` (its opening quote) ends (its closing quote); `None` when
/// it holds a surrogate escape (a pair is fine to a reader of values, a lone one is not: either
/// way such rare text goes through a value) or does not end.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some(i),
            b'\\' => {
                if bytes.get(i + 1) == Some(&b'u') && is_surrogate(bytes.get(i + 2..i + 4)?) {
                    return None;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether the first two hex digits of a `\u` escape make a UTF-16 surrogate (`D800`–`DFFF`).
fn is_surrogate(hex: &[u8]) -> bool {
    matches!(hex, [b'd' | b'D', b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'])
}

#[cfg(test)]
mod tests {
    use super::kept_as_read;

    #[test]
    fn compact_plain_text_is_kept_and_anything_a_value_reader_would_change_is_not() {
        for kept in [
            r#"{"command":"ls -la","n":[1,2.5,-3],"ok":true,"no":false,"x":null}"#,
            r#"{"a":{"b":1},"b":{"b":2},"s":"e E \" \\u \u00e9 \\"}"#,
            r#""{\"x\": 1}""#,
            r#"[{"a":1},{"a":2}]"#,
            "null",
        ] {
            assert!(kept_as_read(kept), "{kept}");
        }
        for changed in [
            r#"{"a": 1}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"o":{"k":1,"k":2}}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"s":"\uD83D\uDE00"}"#,
            r#"{"n":1e400}"#,
            r#"{"n":2E5}"#,
        ] {
            assert!(!kept_as_read(changed), "{changed}");
        }
        let deep = format!("{}1{}", "[".repeat(17), "]".repeat(17));
        assert!(!kept_as_read(&deep));
        let many = format!(
            "{{{}}}",
            (0..33)
                .map(|i| format!("\"k{i}\":{i}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(!kept_as_read(&many));
    }
}
