//! One simple command: its assignments, words and redirections expanded; the builtins that change
//! the shell's state (`cd`, `pushd`, `popd`, `export`, `read`, `set --`, `shift`, …); calls of
//! functions the line defined; and what wrappers and code runners make it run (see `follow`).

use std::rc::Rc;

use brush_parser::ast;

use super::follow::steps;
use super::invocation::{Arg, Input, Invocation, Redirect};
use super::paths::change_dir;
use super::step::Step;
use super::walk::{State, Walker};

/// Variables that make programs load or run code given in their value by other means than a
/// command line (so their value cannot be followed).
const LOADS_CODE: &[&str] = &[
    "LD_PRELOAD",
    "LD_AUDIT",
    "DYLD_INSERT_LIBRARIES",
    "BASH_ENV",
    "ENV",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "LESSOPEN",
    "LESSCLOSE",
    "PERL5OPT",
    "NODE_OPTIONS",
    "RUBYOPT",
];

/// Variables whose value is a command line some program runs (followed like `sh -c`).
const RUNS_VALUE: &[&str] = &[
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "PROMPT_COMMAND",
    "RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WRAPPER",
];

impl Walker {
    /// A simple command as written.
    pub fn simple(&mut self, command: &ast::SimpleCommand, state: &mut State, stdin: &Input) {
        let mut assignments = Vec::new();
        let mut argv: Vec<Arg> = Vec::new();
        let mut input = stdin.clone();
        let name = command
            .word_or_name
            .clone()
            .map(ast::CommandPrefixOrSuffixItem::Word);
        let items = (command.prefix.iter().flat_map(|p| p.0.iter()))
            .chain(name.iter())
            .chain(command.suffix.iter().flat_map(|s| s.0.iter()));
        for item in items {
            use ast::CommandPrefixOrSuffixItem as I;
            match item {
                I::AssignmentWord(assignment, word) => {
                    if argv.is_empty() {
                        assignments.push(self.assignment(assignment, state));
                    } else {
                        argv.extend(self.expand(&word.value, state));
                    }
                }
                I::Word(word) => argv.extend(self.expand(&word.value, state)),
                I::IoRedirect(redirect) => {
                    if let Some(from) = self.redirect(redirect, state) {
                        input = from;
                    }
                }
                I::ProcessSubstitution(_, sub) => argv.push(self.process_substitution(sub, state)),
            }
        }
        for (name, value) in &assignments {
            self.environment(name, value, state);
        }
        if argv.is_empty() {
            for (name, value) in assignments {
                state.set_var(&name, value);
            }
            return;
        }
        self.run(argv, state, &input);
    }

    /// `NAME=value` (an array or an element makes `NAME` unknown).
    fn assignment(&mut self, assignment: &ast::Assignment, state: &mut State) -> (String, Arg) {
        let name = match &assignment.name {
            ast::AssignmentName::VariableName(name) => name.clone(),
            ast::AssignmentName::ArrayElementName(name, _) => name.clone(),
        };
        let value = match (&assignment.value, &assignment.name, assignment.append) {
            (ast::AssignmentValue::Scalar(word), ast::AssignmentName::VariableName(_), false) => {
                self.expand_one(&word.value, state)
            }
            (ast::AssignmentValue::Scalar(word), ..) => {
                self.expand_one(&word.value, state);
                Arg::unknown()
            }
            (ast::AssignmentValue::Array(items), ..) => {
                for (key, value) in items {
                    if let Some(key) = key {
                        self.expand_one(&key.value, state);
                    }
                    self.expand_one(&value.value, state);
                }
                Arg::unknown()
            }
        };
        (name, value)
    }

    /// Checks a variable given to commands: some load code, some hold a command line to follow.
    pub fn environment(&mut self, name: &str, value: &Arg, state: &State) {
        if LOADS_CODE.contains(&name) || name.starts_with("GIT_CONFIG_") {
            self.problem(format!(
                "setting `{name}` makes programs load or run code this check cannot follow"
            ));
        } else if RUNS_VALUE.contains(&name) {
            self.code_step(
                name,
                value,
                Some(Vec::new()),
                state.clone(),
                &Input::Inherited,
            );
        }
    }

    /// Walks `<(…)`/`>(…)` in a subshell; the word is a pipe to it.
    fn process_substitution(&mut self, sub: &ast::SubshellCommand, state: &State) -> Arg {
        self.list(&sub.list, &mut state.clone(), &Input::Inherited);
        Arg {
            text: "/dev/fd/63".into(),
            generated: true,
            ..Arg::default()
        }
    }

    /// Records a redirection; what the command then reads from, if it changes.
    pub fn redirect(&mut self, redirect: &ast::IoRedirect, state: &mut State) -> Option<Input> {
        use ast::{IoFileRedirectKind as K, IoFileRedirectTarget as T, IoRedirect as R};
        let stdin_fd = |fd: &Option<i32>| fd.is_none_or(|fd| fd == 0);
        match redirect {
            R::File(fd, kind, T::Filename(word)) => {
                let target = self.expand_one(&word.value, state);
                let writes = !matches!(kind, K::Read);
                self.out.redirects.push(Redirect {
                    target: target.clone(),
                    writes,
                    dirs: state.dirs.clone(),
                });
                (!writes && stdin_fd(fd)).then_some(Input::File(target))
            }
            R::File(fd, kind, T::ProcessSubstitution(_, sub)) => {
                let pipe = self.process_substitution(sub, state);
                (matches!(kind, K::Read) && stdin_fd(fd)).then_some(Input::File(pipe))
            }
            R::File(..) => None,
            R::OutputAndError(word, _) => {
                let target = self.expand_one(&word.value, state);
                self.out.redirects.push(Redirect {
                    target,
                    writes: true,
                    dirs: state.dirs.clone(),
                });
                None
            }
            R::HereDocument(fd, doc) => {
                let text = if doc.requires_expansion {
                    self.here_text(&doc.doc.value, state)
                } else {
                    doc.doc.value.clone()
                };
                stdin_fd(fd).then_some(Input::Text(text))
            }
            R::HereString(fd, word) => {
                let text = self.here_text(&word.value, state);
                stdin_fd(fd).then_some(Input::Text(text))
            }
        }
    }

    /// The text of a here-document after expansion (as written when part of it is unknown, so
    /// that a shell reading it sees the unknown parts as unknown).
    fn here_text(&mut self, raw: &str, state: &mut State) -> String {
        let value = self.expand_one(raw, state);
        if value.unknown {
            raw.to_string()
        } else {
            value.text
        }
    }

    /// Runs an expanded command: records it, then follows what it runs.
    pub fn run(&mut self, argv: Vec<Arg>, state: &mut State, stdin: &Input) {
        let Some(first) = argv.first() else {
            return;
        };
        if !self.enter() {
            return;
        }
        if first.unknown || first.generated {
            let shown: Vec<&str> = argv
                .iter()
                .map(|a| if a.unknown { "…" } else { a.text.as_str() })
                .collect();
            self.problem(format!(
                "the name of the command `{}` is only known when it runs",
                shown.join(" ").trim()
            ));
        }
        self.out.invocations.push(Invocation {
            argv: argv.clone(),
            dirs: state.dirs.clone(),
            stdin: stdin.clone(),
        });
        let function = (!first.text.contains('/'))
            .then(|| state.functions.get(&first.text).cloned())
            .flatten();
        if let Some(body) = function {
            self.call(&first.text.clone(), body, argv[1..].to_vec(), state, stdin);
        } else if !self.builtin(&argv, state) {
            for step in steps(&argv, stdin) {
                self.step(step, state, stdin);
            }
        }
        self.leave();
    }

    fn step(&mut self, step: Step, state: &mut State, stdin: &Input) {
        match step {
            Step::Command {
                argv,
                same_shell,
                dir,
                env,
            } => {
                for (name, value) in &env {
                    self.environment(name, value, state);
                }
                let mut own = state.clone();
                let st = if same_shell { state } else { &mut own };
                if let Some(dir) = dir {
                    st.dirs = change_dir(&st.dirs, Some(&dir));
                }
                self.run(argv, st, stdin);
            }
            Step::Code {
                runner,
                code,
                new_shell,
                input,
            } => {
                let input = input.unwrap_or_else(|| stdin.clone());
                match new_shell {
                    Some(positional) => {
                        self.code_step(&runner, &code, Some(positional), state.clone(), &input)
                    }
                    None => {
                        if code.unknown || code.generated {
                            self.problem(format!(
                                "`{runner}` runs code that is only known when it runs"
                            ));
                        } else {
                            self.code_with_input(&code.text, state, &input);
                        }
                    }
                }
            }
        }
    }

    /// Walks `code` run by `runner` in a new shell.
    fn code_step(
        &mut self,
        runner: &str,
        code: &Arg,
        positional: Option<Vec<Arg>>,
        state: State,
        input: &Input,
    ) {
        if code.unknown || code.generated {
            self.problem(format!(
                "`{runner}` runs code that is only known when it runs"
            ));
            return;
        }
        let mut shell = State::new(state.dirs.clone(), positional);
        self.code_with_input(&code.text, &mut shell, input);
    }

    /// Calls a function the line defined: its body runs in this shell with `args` as `$1`, `$2`, ….
    fn call(
        &mut self,
        name: &str,
        body: Rc<ast::FunctionBody>,
        args: Vec<Arg>,
        state: &mut State,
        stdin: &Input,
    ) {
        self.called.insert(name.to_string());
        let saved = state.positional.replace(args);
        self.compound(&body.0, state, stdin);
        state.positional = saved;
    }
}
