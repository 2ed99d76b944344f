//! The builtins that change the shell's state as the walk sees it: the directory (`cd`, `pushd`,
//! `popd`), variables (`export`, `declare`, `local`, `readonly`, `typeset`, `unset`, `read`,
//! `mapfile`, `getopts`, `printf -v`) and positional parameters (`set --`, `shift`).

use super::invocation::Arg;
use super::paths::change_dir;
use super::walk::{State, Walker};

/// Whether `word` is a shell variable name.
pub(super) fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Walker {
    /// Applies a state-changing builtin; `false` when `argv` is not one.
    pub fn builtin(&mut self, argv: &[Arg], state: &mut State) -> bool {
        let Some((program, args)) = argv.split_first() else {
            return false;
        };
        match program.text.as_str() {
            "cd" | "pushd" | "popd" => directory(&program.text, args, state),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                for arg in args {
                    if let Some((name, value)) = arg.text.split_once('=')
                        && is_name(name.strip_suffix('+').unwrap_or(name))
                    {
                        let value = Arg {
                            text: value.to_string(),
                            unknown: arg.unknown || name.ends_with('+'),
                            ..Arg::default()
                        };
                        let name = name.trim_end_matches('+');
                        self.environment(name, &value, state);
                        state.set_var(name, value);
                    }
                }
            }
            "let" => {
                for arg in args {
                    self.arithmetic(&arg.text, state);
                }
            }
            name => return variables(name, args, state),
        }
        true
    }
}

/// `cd`, `pushd`, `popd`.
fn directory(name: &str, args: &[Arg], state: &mut State) {
    let operand = args.iter().find(|a| !a.text.starts_with('-'));
    match name {
        "cd" => {
            let target = match operand {
                None if args.iter().any(|a| a.text == "-") => None,
                None => Some(Arg::known("~")),
                Some(target) => Some(target.clone()),
            };
            state.dirs = change_dir(&state.dirs, target.as_ref());
        }
        "pushd" => {
            let here = state.dirs.clone();
            state.dirs = match operand {
                Some(target) if !target.text.starts_with('+') => {
                    change_dir(&state.dirs, Some(target))
                }
                _ => vec![None],
            };
            state.stack.push(here);
        }
        _ => {
            state.dirs = match (operand, state.stack.pop()) {
                (None, Some(dirs)) => dirs,
                _ => vec![None],
            };
        }
    }
}

/// Builtins that unset or read variables, or set the positional parameters; `false` for others.
fn variables(name: &str, args: &[Arg], state: &mut State) -> bool {
    match name {
        "unset" => {
            for arg in args.iter().filter(|a| !a.text.starts_with('-')) {
                state.set_var(&arg.text, Arg::known(""));
                state.functions.remove(&arg.text);
            }
        }
        "read" | "mapfile" | "readarray" | "getopts" | "printf" => {
            for arg in args.iter().filter(|a| is_name(&a.text)) {
                state.set_var(&arg.text, Arg::unknown());
            }
        }
        "set" => {
            if let Some(at) = args.iter().position(|a| a.text == "--") {
                state.positional = Some(args[at + 1..].to_vec());
            } else if args
                .first()
                .is_some_and(|a| !a.text.starts_with(['-', '+']))
            {
                state.positional = Some(args.to_vec());
            }
        }
        "shift" => {
            let n = args
                .first()
                .map_or(Some(1), |a| a.text.parse::<usize>().ok());
            state.positional = match (state.positional.take(), n) {
                (Some(params), Some(n)) => Some(params.into_iter().skip(n).collect()),
                _ => None,
            };
        }
        _ => return false,
    }
    true
}
