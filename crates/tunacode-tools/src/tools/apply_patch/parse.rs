//! The patch format OpenAI's models are trained to write:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path
//! +line
//! *** Update File: path
//! *** Move to: new/path
//! @@ optional line to find first
//!  context
//! -old
//! +new
//! *** End of File
//! *** Delete File: path
//! *** End Patch
//! ```
//!
//! Hand-written: the format is small and no crate on crates.io parses it.

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum FileOp {
    /// A new file with these lines.
    Add { path: String, lines: Vec<String> },
    /// A file to delete.
    Delete { path: String },
    /// A file to change (and maybe move).
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// One `@@` section of an update.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Hunk {
    /// The text after `@@`, if any: a line to find before the hunk's lines.
    pub anchor: Option<String>,
    /// The lines the file has now (context and removed), in order.
    pub old: Vec<String>,
    /// The lines it gets (context and added), in order.
    pub new: Vec<String>,
    /// `*** End of File`: the old lines end the file.
    pub at_end: bool,
}

/// Parses a whole patch; the error names the line that is wrong.
pub(crate) fn parse_patch(text: &str) -> Result<Vec<FileOp>, String> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let body = patch_body(&lines)?;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let line = body[i];
        if let Some(path) = header(line, "*** Add File:") {
            let (added, next) = parse_added(body, i + 1, &path)?;
            i = next;
            ops.push(FileOp::Add { path, lines: added });
        } else if let Some(path) = header(line, "*** Delete File:") {
            ops.push(FileOp::Delete { path });
            i += 1;
        } else if let Some(path) = header(line, "*** Update File:") {
            i += 1;
            let move_to = body.get(i).and_then(|l| header(l, "*** Move to:"));
            if move_to.is_some() {
                i += 1;
            }
            let (hunks, next) = parse_hunks(body, i, &path)?;
            i = next;
            ops.push(FileOp::Update {
                path,
                move_to,
                hunks,
            });
        } else if line.trim().is_empty() {
            i += 1;
        } else {
            return Err(format!(
                "expected `*** Add File:`, `*** Update File:` or `*** Delete File:`, found {line:?}"
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch changes no file".into());
    }
    Ok(ops)
}

/// The lines between `*** Begin Patch` and the last `*** End Patch`.
fn patch_body<'a>(lines: &'a [&'a str]) -> Result<&'a [&'a str], String> {
    let start = lines
        .iter()
        .position(|l| l.trim() == "*** Begin Patch")
        .ok_or("the patch must start with `*** Begin Patch`")?;
    let end = lines
        .iter()
        .rposition(|l| l.trim() == "*** End Patch")
        .ok_or("the patch must end with `*** End Patch`")?;
    if end <= start {
        return Err("`*** End Patch` comes before `*** Begin Patch`".into());
    }
    Ok(&lines[start + 1..end])
}

/// The lines of an added file, from `body[i]` up to the next header, each without its `+`; where
/// parsing stopped.
fn parse_added(body: &[&str], mut i: usize, path: &str) -> Result<(Vec<String>, usize), String> {
    let mut added = Vec::new();
    while i < body.len() && !body[i].starts_with("*** ") {
        let l = body[i];
        let text = l.strip_prefix('+').ok_or_else(|| {
            format!("in `*** Add File: {path}`, every line must start with `+`: {l:?}")
        })?;
        added.push(text.to_string());
        i += 1;
    }
    Ok((added, i))
}

fn header(line: &str, tag: &str) -> Option<String> {
    line.strip_prefix(tag)
        .map(|rest| rest.trim().to_string())
        .filter(|p| !p.is_empty())
}

/// The hunks of an update, from `body[i]` up to the next file header; where parsing stopped.
fn parse_hunks(body: &[&str], mut i: usize, path: &str) -> Result<(Vec<Hunk>, usize), String> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut current: Option<Hunk> = None;
    while i < body.len() {
        let line = body[i];
        if line.starts_with("*** ") && line.trim() != "*** End of File" {
            break;
        }
        if line.trim() == "*** End of File" {
            current.get_or_insert_with(Hunk::default).at_end = true;
        } else if let Some(anchor) = line.strip_prefix("@@") {
            if let Some(done) = current.take() {
                hunks.push(done);
            }
            let anchor = anchor.trim();
            current = Some(Hunk {
                anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                ..Hunk::default()
            });
        } else {
            let hunk = current.get_or_insert_with(Hunk::default);
            match line.chars().next() {
                Some('+') => hunk.new.push(line[1..].to_string()),
                Some('-') => hunk.old.push(line[1..].to_string()),
                Some(' ') => {
                    hunk.old.push(line[1..].to_string());
                    hunk.new.push(line[1..].to_string());
                }
                // A bare empty line is an empty context line (models often drop the space).
                None => {
                    hunk.old.push(String::new());
                    hunk.new.push(String::new());
                }
                _ => {
                    return Err(format!(
                        "in `*** Update File: {path}`, a hunk line must start with ` `, `-` or `+`: {line:?}"
                    ));
                }
            }
        }
        i += 1;
    }
    if let Some(done) = current {
        hunks.push(done);
    }
    hunks.retain(|h| !(h.old.is_empty() && h.new.is_empty() && h.anchor.is_none()));
    if hunks.is_empty() {
        return Err(format!("`*** Update File: {path}` has no hunk"));
    }
    Ok((hunks, i))
}
