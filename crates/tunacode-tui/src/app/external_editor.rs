//! Rewriting text in the user's editor (`$VISUAL`, else `$EDITOR`, else `vi`) from inside the UI: the
//! terminal is handed over (raw mode, the alternate screen and the UI's terminal modes off, the UI's
//! key reader dropped so it does not take the editor's keys), the text goes through a private
//! temporary file, and the UI takes the terminal back and redraws whole.

use std::io::Write;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::execute;

use crate::error::TuiError;

/// The terminal modes the UI runs in (besides raw mode and the alternate screen).
pub(crate) fn enter_modes(enhanced: bool) -> std::io::Result<()> {
    let mut stdout = std::io::stdout();
    execute!(stdout, EnableBracketedPaste, EnableMouseCapture)?;
    if enhanced {
        // Lets Shift+Enter be told apart from Enter where the terminal supports it.
        execute!(
            stdout,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
    }
    Ok(())
}

/// Leaves the modes [`enter_modes`] set (errors are ignored: the terminal may be gone).
pub(crate) fn leave_modes(enhanced: bool) {
    let mut stdout = std::io::stdout();
    if enhanced {
        let _ = execute!(stdout, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(stdout, DisableBracketedPaste, DisableMouseCapture);
}

/// Lets the user rewrite `text` in their editor. `None` when they left it unchanged or no editor
/// could run (what went wrong is logged). The caller drops its key reader first.
pub(crate) async fn edit(
    terminal: &mut ratatui::DefaultTerminal,
    text: String,
) -> Result<Option<String>, TuiError> {
    let enhanced = crossterm::terminal::supports_keyboard_enhancement().unwrap_or(false);
    leave_modes(enhanced);
    ratatui::restore();
    let editor = editor_command();
    let edited = tokio::task::spawn_blocking(move || run_editor(&editor, &text)).await;
    *terminal = ratatui::try_init()?;
    enter_modes(enhanced)?;
    terminal.clear()?;
    match edited {
        Ok(Ok(edited)) => Ok(edited),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the editor could not run");
            Ok(None)
        }
        Err(e) => {
            tracing::warn!(error = %e, "the editor's thread failed");
            Ok(None)
        }
    }
}

/// The user's editor: `$VISUAL`, else `$EDITOR`, else `vi`.
fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".into())
}

/// Writes `text` to a private temporary file, runs `editor` on it and reads it back (blocks).
fn run_editor(editor: &str, text: &str) -> std::io::Result<Option<String>> {
    let mut file = tempfile::Builder::new()
        .prefix("tunacode-hunk-")
        .suffix(".diff")
        .tempfile()?;
    file.write_all(text.as_bytes())?;
    file.flush()?;
    // The editor is a command line (`code -w`, `vim -u NONE`): the shell splits it; the file's path
    // is passed as an argument, never put in the command line.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(file.path())
        .status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!(
            "{editor} exited with {status}"
        )));
    }
    let edited = std::fs::read_to_string(file.path())?;
    Ok((edited != text).then_some(edited))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_editor_rewrites_the_text_through_a_file_given_as_an_argument() {
        // Stand-in editors: shell commands that rewrite (or leave) the file they are given.
        let out = run_editor("sed -i 's/+two/+TWO/'", "@@ -1 +1 @@\n-one\n+two\n");
        assert_eq!(out.unwrap().as_deref(), Some("@@ -1 +1 @@\n-one\n+TWO\n"));
        assert_eq!(run_editor("true", "same\n").unwrap(), None);
        assert!(run_editor("false", "x\n").is_err());
    }
}
