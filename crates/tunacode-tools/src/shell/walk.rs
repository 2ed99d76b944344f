//! The walk over the syntax tree: lists, `&&`/`||`, pipelines, compound commands and function
//! definitions, with the shell state the line builds up ([`State`]: variables, the directory, the
//! `pushd` stack, positional parameters, functions). Where the line may take several paths (`||`,
//! `if`, loops) the states are merged: what differs becomes unknown, the possible directories are
//! kept side by side.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use brush_parser::ast;

use super::invocation::{Analysis, Arg, Input};

/// How deep code may nest (`sh -c` in `eval` in a function …) before the walk gives up.
const MAX_DEPTH: usize = 32;
/// How many commands one analysis looks at before it gives up.
const MAX_STEPS: usize = 4000;
/// How many directories a command may be in before the walk calls it unknown.
const MAX_DIRS: usize = 8;

/// The shell state at one point of the line.
#[derive(Debug, Clone)]
pub(super) struct State {
    vars: HashMap<String, Arg>,
    /// The directories the shell may be in (`None`: one this analysis cannot tell).
    pub dirs: Vec<Option<PathBuf>>,
    pub stack: Vec<Vec<Option<PathBuf>>>,
    /// The positional parameters (`None`: unknown).
    pub positional: Option<Vec<Arg>>,
    pub functions: HashMap<String, Rc<ast::FunctionBody>>,
}

impl State {
    /// A new shell in `dir` with these positional parameters.
    pub fn new(dirs: Vec<Option<PathBuf>>, positional: Option<Vec<Arg>>) -> State {
        State {
            vars: HashMap::new(),
            dirs,
            stack: Vec::new(),
            positional,
            functions: HashMap::new(),
        }
    }

    /// The value of variable `name`: assigned in the line, `HOME` (`~`), `PWD`, or unknown.
    pub fn var(&self, name: &str) -> Arg {
        if let Some(value) = self.vars.get(name) {
            return value.clone();
        }
        match (name, self.dirs.as_slice()) {
            ("HOME", _) => Arg::known("~"),
            ("PWD", [Some(dir)]) => Arg::known(dir.to_string_lossy()),
            _ => Arg::unknown(),
        }
    }

    /// Sets variable `name`.
    pub fn set_var(&mut self, name: &str, value: Arg) {
        self.vars.insert(name.to_string(), value);
    }

    /// The one directory the shell is in, when it is known and single.
    pub fn single_dir(&self) -> Option<&Path> {
        match self.dirs.as_slice() {
            [Some(dir)] => Some(dir),
            _ => None,
        }
    }

    /// The state that holds after either `self` or `other`.
    pub fn merge(&self, other: &State) -> State {
        let mut vars = HashMap::new();
        for name in self.vars.keys().chain(other.vars.keys()) {
            let (a, b) = (self.var(name), other.var(name));
            vars.insert(name.clone(), if a == b { a } else { Arg::unknown() });
        }
        let mut functions = self.functions.clone();
        functions.extend(other.functions.clone());
        State {
            vars,
            dirs: merge_dirs(&self.dirs, &other.dirs),
            stack: if self.stack == other.stack {
                self.stack.clone()
            } else {
                Vec::new()
            },
            positional: (self.positional == other.positional)
                .then(|| self.positional.clone())
                .flatten(),
            functions,
        }
    }
}

/// The directories of either list.
pub(super) fn merge_dirs(a: &[Option<PathBuf>], b: &[Option<PathBuf>]) -> Vec<Option<PathBuf>> {
    let mut dirs = a.to_vec();
    for dir in b {
        if !dirs.contains(dir) {
            dirs.push(dir.clone());
        }
    }
    if dirs.len() > MAX_DIRS {
        vec![None]
    } else {
        dirs
    }
}

/// Walks code and collects what it runs.
pub(super) struct Walker {
    pub out: Analysis,
    depth: usize,
    steps: usize,
    /// Functions defined in the line, and whether each was called.
    defined: Vec<(String, Rc<ast::FunctionBody>)>,
    pub called: HashSet<String>,
}

impl Walker {
    /// Runs `walk` from a new shell in `workspace`, then walks the functions it defined but never
    /// called (with unknown arguments), and returns what was found.
    pub fn top_level(workspace: &Path, walk: impl FnOnce(&mut Self, &mut State)) -> Analysis {
        let mut walker = Walker {
            out: Analysis::default(),
            depth: 0,
            steps: 0,
            defined: Vec::new(),
            called: HashSet::new(),
        };
        let mut state = State::new(vec![Some(workspace.to_path_buf())], Some(Vec::new()));
        walk(&mut walker, &mut state);
        let uncalled: Vec<_> = walker
            .defined
            .iter()
            .filter(|(name, _)| !walker.called.contains(name))
            .map(|(_, body)| Rc::clone(body))
            .collect();
        for body in uncalled {
            let mut st = state.clone();
            st.positional = None;
            walker.compound(&body.0, &mut st, &Input::Inherited);
        }
        walker.out
    }

    /// Records why part of the line cannot be followed.
    pub fn problem(&mut self, why: impl Into<String>) {
        let why = why.into();
        if !self.out.problems.contains(&why) {
            self.out.problems.push(why);
        }
    }

    /// Counts one step into nested code; `false` (and a problem) when the walk must stop.
    pub fn enter(&mut self) -> bool {
        self.steps += 1;
        if self.depth >= MAX_DEPTH || self.steps > MAX_STEPS {
            self.problem("the command line nests too deeply to be followed");
            return false;
        }
        self.depth += 1;
        true
    }

    /// Leaves what [`Walker::enter`] entered.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Parses `code` and walks it in `state`; code that does not parse is a problem.
    pub fn code(&mut self, code: &str, state: &mut State) {
        self.code_with_input(code, state, &Input::Inherited);
    }

    /// [`Walker::code`] with the code's standard input.
    pub fn code_with_input(&mut self, code: &str, state: &mut State, stdin: &Input) {
        if !self.enter() {
            return;
        }
        match parse(code) {
            Ok(program) => {
                for list in &program.complete_commands {
                    self.list(list, state, stdin);
                }
            }
            Err(e) => self.problem(format!("the command line could not be parsed ({e})")),
        }
        self.leave();
    }

    /// A list of and-or lists joined by `;`, `&` or newlines.
    pub fn list(&mut self, list: &ast::CompoundList, state: &mut State, stdin: &Input) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            if matches!(separator, ast::SeparatorOperator::Async) {
                self.and_or(and_or, &mut state.clone(), stdin);
            } else {
                self.and_or(and_or, state, stdin);
            }
        }
    }

    /// `a && b || c`: each part runs in the state it would see, the end state is the merge of all.
    fn and_or(&mut self, list: &ast::AndOrList, state: &mut State, stdin: &Input) {
        let before = state.clone();
        self.pipeline(&list.first, state, stdin);
        if list.additional.is_empty() {
            return;
        }
        let mut succeeded = state.clone();
        let mut failed = before.merge(state);
        for next in &list.additional {
            match next {
                ast::AndOr::And(pipeline) => {
                    let mut st = succeeded.clone();
                    self.pipeline(pipeline, &mut st, stdin);
                    failed = failed.merge(&st);
                    succeeded = st;
                }
                ast::AndOr::Or(pipeline) => {
                    let mut st = failed.clone();
                    self.pipeline(pipeline, &mut st, stdin);
                    succeeded = succeeded.merge(&st);
                    failed = st;
                }
            }
        }
        *state = succeeded.merge(&failed);
    }

    /// Commands joined by `|`: each part after the first reads the pipe, and every part runs in a
    /// subshell (a lone command runs in this shell).
    fn pipeline(&mut self, pipeline: &ast::Pipeline, state: &mut State, stdin: &Input) {
        if let [only] = pipeline.seq.as_slice() {
            self.command(only, state, stdin);
            return;
        }
        let mut download = false;
        for (i, command) in pipeline.seq.iter().enumerate() {
            let input = if i == 0 {
                stdin.clone()
            } else {
                Input::Pipe { download }
            };
            let from = self.out.invocations.len();
            self.command(command, &mut state.clone(), &input);
            download |= self.out.invocations[from..]
                .iter()
                .any(|inv| DOWNLOADERS.contains(&inv.name()));
        }
    }

    /// One command of a pipeline.
    fn command(&mut self, command: &ast::Command, state: &mut State, stdin: &Input) {
        if !self.enter() {
            return;
        }
        match command {
            ast::Command::Simple(simple) => self.simple(simple, state, stdin),
            ast::Command::Compound(compound, redirects) => {
                if let Some(redirects) = redirects {
                    for redirect in &redirects.0 {
                        self.redirect(redirect, state);
                    }
                }
                self.compound(compound, state, stdin);
            }
            ast::Command::Function(def) => {
                let name = def.fname.value.clone();
                let body = Rc::new(def.body.clone());
                self.defined.push((name.clone(), Rc::clone(&body)));
                state.functions.insert(name, body);
            }
            ast::Command::ExtendedTest(test) => self.extended_test(&test.expr, state),
        }
        self.leave();
    }

    /// The words of `[[ … ]]` are expanded (their substitutions run).
    fn extended_test(&mut self, expr: &ast::ExtendedTestExpr, state: &mut State) {
        use ast::ExtendedTestExpr as E;
        match expr {
            E::And(a, b) | E::Or(a, b) => {
                self.extended_test(a, state);
                self.extended_test(b, state);
            }
            E::Not(a) | E::Parenthesized(a) => self.extended_test(a, state),
            E::UnaryTest(_, word) => {
                self.expand(&word.value, state);
            }
            E::BinaryTest(_, a, b) => {
                self.expand(&a.value, state);
                self.expand(&b.value, state);
            }
        }
    }

    /// `if`, loops, `case`, groups and subshells.
    pub fn compound(&mut self, compound: &ast::CompoundCommand, state: &mut State, stdin: &Input) {
        use ast::CompoundCommand as C;
        match compound {
            C::BraceGroup(group) => self.list(&group.list, state, stdin),
            C::Subshell(sub) => self.list(&sub.list, &mut state.clone(), stdin),
            C::Arithmetic(arith) => self.arithmetic(&arith.expr.value, state),
            C::ForClause(clause) => self.for_clause(clause, state, stdin),
            C::ArithmeticForClause(clause) => {
                for expr in [&clause.initializer, &clause.condition, &clause.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&expr.value, state);
                }
                self.repeat(state, |w, st| w.list(&clause.body.list, st, stdin));
            }
            C::WhileClause(clause) | C::UntilClause(clause) => {
                self.list(&clause.0, state, stdin);
                self.repeat(state, |w, st| {
                    w.list(&clause.1.list, st, stdin);
                    w.list(&clause.0, st, stdin);
                });
            }
            C::IfClause(clause) => self.if_clause(clause, state, stdin),
            C::CaseClause(clause) => {
                self.expand(&clause.value.value, state);
                let mut end = state.clone();
                for item in &clause.cases {
                    let mut st = state.clone();
                    if let Some(list) = &item.cmd {
                        self.list(list, &mut st, stdin);
                    }
                    end = end.merge(&st);
                }
                *state = end;
            }
        }
    }

    /// A loop body run zero, one or two times (the second pass sees what the first changed).
    fn repeat(&mut self, state: &mut State, mut body: impl FnMut(&mut Self, &mut State)) {
        let mut once = state.clone();
        body(self, &mut once);
        let mut twice = state.merge(&once);
        body(self, &mut twice);
        *state = state.merge(&once).merge(&twice);
    }

    /// `for NAME in WORDS`: the body once per known word (up to a few), else once with `NAME` unknown.
    fn for_clause(&mut self, clause: &ast::ForClauseCommand, state: &mut State, stdin: &Input) {
        let values = match &clause.values {
            Some(words) => {
                let mut values = Vec::new();
                for word in words {
                    values.extend(self.expand(&word.value, state));
                }
                Some(values)
            }
            None => state.positional.clone(),
        };
        let before = state.clone();
        match values {
            Some(values) if values.len() <= 16 && values.iter().all(|v| !v.unknown) => {
                for value in values {
                    state.set_var(&clause.variable_name, value);
                    self.list(&clause.body.list, state, stdin);
                }
            }
            _ => {
                state.set_var(&clause.variable_name, Arg::unknown());
                self.repeat(state, |w, st| w.list(&clause.body.list, st, stdin));
            }
        }
        *state = before.merge(state);
    }

    /// `if`: every branch from the state after the conditions; the end is the merge of the branches.
    fn if_clause(&mut self, clause: &ast::IfClauseCommand, state: &mut State, stdin: &Input) {
        self.list(&clause.condition, state, stdin);
        let mut then = state.clone();
        self.list(&clause.then, &mut then, stdin);
        let mut end = then;
        let mut has_else = false;
        for branch in clause.elses.iter().flatten() {
            let mut st = state.clone();
            if let Some(condition) = &branch.condition {
                self.list(condition, &mut st, stdin);
            } else {
                has_else = true;
            }
            self.list(&branch.body, &mut st, stdin);
            end = end.merge(&st);
        }
        if !has_else {
            end = end.merge(state);
        }
        *state = end;
    }

    /// Arithmetic can hide command substitutions (`$(( $(cmd) ))`): they run.
    pub fn arithmetic(&mut self, expr: &str, state: &mut State) {
        if expr.contains("$(") || expr.contains('`') {
            self.expand(&format!("\"{expr}\""), state);
        }
    }
}

/// Programs that fetch from the network (for the reason given when their output is run).
pub(super) const DOWNLOADERS: &[&str] = &[
    "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "nc", "ncat", "socat", "ssh",
];

/// How deeply brackets may nest in a line handed to the parser (its recursion is not bounded).
const MAX_NESTING: usize = 100;

/// Parses `code` as bash does; an error says why it cannot be followed.
pub(super) fn parse(code: &str) -> Result<ast::Program, String> {
    let mut depth = 0usize;
    let mut deepest = 0;
    for c in code.chars() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        deepest = deepest.max(depth);
    }
    if deepest > MAX_NESTING {
        return Err("it nests too deeply".into());
    }
    let options = brush_parser::ParserOptions::default();
    let source = brush_parser::SourceInfo::default();
    // A parser bug must not take the agent down with it: a panic is a line that cannot be followed.
    std::panic::catch_unwind(|| {
        brush_parser::Parser::new(std::io::Cursor::new(code.as_bytes()), &options, &source)
            .parse_program()
    })
    .map_err(|_| "the parser failed on it".to_string())?
    .map_err(|e| e.to_string())
}
