//! [`Step`]: one thing a command makes run besides itself, as `follow.rs` and `git_commands.rs` find
//! them and the walk follows them.

use super::invocation::{Arg, Input};

/// One thing a command makes run.
#[derive(Debug)]
pub(super) enum Step {
    /// A command.
    Command {
        /// Its words.
        argv: Vec<Arg>,
        /// It runs in the same shell (`command cd x` changes the directory).
        same_shell: bool,
        /// The directory it runs in, when the wrapper changes it (`env -C dir`).
        dir: Option<Arg>,
        /// Variables the wrapper sets for it.
        env: Vec<(String, Arg)>,
    },
    /// Shell code.
    Code {
        /// What runs it (for the reason when it cannot be followed).
        runner: String,
        /// The code.
        code: Arg,
        /// A new shell with these positional parameters, or (`None`) the same shell.
        new_shell: Option<Vec<Arg>>,
        /// Its standard input, when not the command's.
        input: Option<Input>,
    },
}
