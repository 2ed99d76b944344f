//! Whether a glob a command line hands to the shell (`cat secr*`, `cat */.env`) could name a path a
//! rule's glob matches (`read_file(secret.txt)`, `read_file(**/.env)`): the two patterns are
//! intersected, the operand read as bash expands it (`*`, `?` and `[…]` never match `/`, nor a
//! leading `.` of a name), the rule as the permission rules match it (globset: `*` and `?` match
//! `/` too, `**` any number of directories, `{a,b}` alternatives). Conservative where it has to
//! guess: two character classes are taken to share a character, and a rule too complex to
//! expand matches. A wrong "may match" only asks or refuses; a wrong "cannot" would leak the file.

use std::collections::HashSet;

/// One element of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// This character.
    Lit(char),
    /// Any one character (`?`).
    One,
    /// One character of a class (`[a-z]`, `[!.]`).
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    /// Any run of characters (`*`).
    Star,
}

impl Tok {
    /// Whether this single-character element accepts `c` (a class as written; `*` and `?` all).
    fn accepts(&self, c: char) -> bool {
        match self {
            Tok::Lit(l) => *l == c,
            Tok::Class { negated, ranges } => {
                ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
            }
            Tok::One | Tok::Star => true,
        }
    }
}

/// The most alternatives a rule's `{…}` and `**` are expanded into before giving up (and
/// answering "may match").
const MAX_VARIANTS: usize = 64;

/// Whether the bash glob `operand` (a path relative to the workspace, or absolute) may expand to
/// a path the rule glob `rule` matches.
pub(super) fn may_name(operand: &str, rule: &str) -> bool {
    let Some(variants) = rule_variants(rule) else {
        return true;
    };
    let operand = tokens(operand, false);
    variants
        .iter()
        .any(|variant| intersects(&operand, &tokens(variant, true)))
}

/// The rule's alternatives without `{…}` and with each `**` component either a `*` or gone with
/// its separator (`**/.env` → `*/.env`, `.env`); `None` when there are too many.
fn rule_variants(rule: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for variant in braces(rule)? {
        let mut partial = vec![Vec::<&str>::new()];
        for component in variant.split('/') {
            let mut next = Vec::new();
            for done in &partial {
                let mut kept = done.clone();
                kept.push(if component == "**" { "*" } else { component });
                next.push(kept);
                if component == "**" {
                    next.push(done.clone());
                }
            }
            if next.len() > MAX_VARIANTS {
                return None;
            }
            partial = next;
        }
        out.extend(partial.into_iter().map(|c| c.join("/")));
        if out.len() > MAX_VARIANTS {
            return None;
        }
    }
    Some(out)
}

/// `text` with its `{a,b}` alternatives expanded (globset's: not nested); `None` when too many.
fn braces(text: &str) -> Option<Vec<String>> {
    let mut escaped = false;
    let mut open = None;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => open = Some(at),
            '}' if open.is_some() => {
                let start = open?;
                let (head, tail) = (&text[..start], &text[at + 1..]);
                let mut out = Vec::new();
                for choice in text[start + 1..at].split(',') {
                    for rest in braces(tail)? {
                        out.push(format!("{head}{choice}{rest}"));
                    }
                    if out.len() > MAX_VARIANTS {
                        return None;
                    }
                }
                return Some(out);
            }
            _ => {}
        }
    }
    Some(vec![text.to_string()])
}

/// The elements of a pattern; `rule`: globset's (`\` escapes), else bash's after quote removal
/// (a `\` is a character).
fn tokens(pattern: &str, rule: bool) -> Vec<Tok> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i += 1;
        match c {
            '\\' if rule => {
                out.extend(chars.get(i).map(|&e| Tok::Lit(e)));
                i += 1;
            }
            '*' => {
                if out.last() != Some(&Tok::Star) {
                    out.push(Tok::Star);
                }
            }
            '?' => out.push(Tok::One),
            '[' => match class(&chars[i..]) {
                Some((tok, used)) => {
                    out.push(tok);
                    i += used;
                }
                None => out.push(Tok::Lit('[')),
            },
            _ => out.push(Tok::Lit(c)),
        }
    }
    out
}

/// A character class after its `[`, and how many characters it used; `None` without a `]`.
fn class(chars: &[char]) -> Option<(Tok, usize)> {
    let negated = matches!(chars.first(), Some('!' | '^'));
    let mut i = usize::from(negated);
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            return Some((Tok::Class { negated, ranges }, i + 1));
        }
        first = false;
        match (chars.get(i + 1), chars.get(i + 2)) {
            (Some('-'), Some(&hi)) if hi != ']' => {
                ranges.push((c, hi));
                i += 3;
            }
            _ => {
                ranges.push((c, c));
                i += 1;
            }
        }
    }
    None
}

/// Where in a name the next character of the path is, as bash's rule about a leading `.` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    /// It begins a name.
    Start,
    /// It begins a name whose pattern began with a wildcard (now skipped): it is not a `.`.
    StartAfterWildcard,
    /// It is inside a name.
    Inside,
}

/// Whether some path is matched by both the bash glob `op` and the rule glob `rule`: a search over
/// the pairs of positions in both (and the place in a name, for bash's leading `.`).
fn intersects(op: &[Tok], rule: &[Tok]) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![(0, 0, Place::Start)];
    while let Some(state) = stack.pop() {
        if !seen.insert(state) {
            continue;
        }
        let (i, j, place) = state;
        if i == op.len() && j == rule.len() {
            return true;
        }
        if op.get(i) == Some(&Tok::Star) {
            let place = match place {
                Place::Inside => Place::Inside,
                _ => Place::StartAfterWildcard,
            };
            stack.push((i + 1, j, place));
        }
        if rule.get(j) == Some(&Tok::Star) {
            stack.push((i, j + 1, place));
        }
        let (Some(a), Some(b)) = (op.get(i), rule.get(j)) else {
            continue;
        };
        if let Some(slash) = shared(a, b, place) {
            let next_i = if *a == Tok::Star { i } else { i + 1 };
            let next_j = if *b == Tok::Star { j } else { j + 1 };
            let next = if slash { Place::Start } else { Place::Inside };
            stack.push((next_i, next_j, next));
        }
    }
    false
}

/// Whether the operand's element `a` and the rule's element `b` can both match one character at
/// `place`; `Some(true)` when that character is `/`.
fn shared(a: &Tok, b: &Tok, place: Place) -> Option<bool> {
    // Bash matches a leading `.` only by a `.` starting the pattern (a class naming it is let
    // through: conservative).
    let dot_allowed = match place {
        Place::Inside => true,
        Place::Start => !matches!(a, Tok::One | Tok::Star),
        Place::StartAfterWildcard => matches!(a, Tok::Class { .. }),
    };
    if let Tok::Lit(c) = a {
        return (b.accepts(*c) && (*c != '.' || dot_allowed)).then_some(*c == '/');
    }
    // A bash wildcard matches no `/`.
    let wildcard_accepts = |c: char| c != '/' && a.accepts(c) && (c != '.' || dot_allowed);
    match b {
        Tok::Lit(c) => wildcard_accepts(*c).then_some(false),
        // Two wildcards: taken to share an ordinary character.
        _ => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_that_may_name_the_rules_path_match() {
        for (operand, rule) in [
            ("secr*", "secret.txt"),
            ("secret.tx?", "secret.txt"),
            ("s[a-f]cret.txt", "secret.txt"),
            ("*", "secret.txt"),
            ("*.txt", "*.txt"),
            (".e*", "**/.env"),
            ("sub/.e?v", "**/.env"),
            ("*/.env", "**/.env"),
            (".*", ".env"),
            ("[.]env", ".env"),
            ("k*/id", "keys/**"),
            ("k*", "keys/**"),
            ("*/*", "keys/**"),
            ("src/*.pem", "*.pem"),
            ("a/*/c", "a/{b,x}/c"),
            ("/etc/pass*", "/etc/passwd"),
        ] {
            assert!(may_name(operand, rule), "{operand} vs {rule}");
        }
    }

    #[test]
    fn globs_that_cannot_name_it_do_not() {
        for (operand, rule) in [
            ("*", ".env"),
            ("*.env", "**/.env"),
            ("*.env", ".env"),
            ("?env", ".env"),
            ("*.md", "secret.txt"),
            ("src/*", "secret.txt"),
            ("s*/x", "secret.txt"),
            ("secret.txt?", "secret.txt"),
            ("[!s]*", "secret.txt"),
            ("l*", "keys/**"),
            ("*/*.rs", "**/.env"),
            ("a/*/c", "a/{b,x}/d"),
        ] {
            assert!(!may_name(operand, rule), "{operand} vs {rule}");
        }
    }
}
