//! Word expansion as bash does it, as far as the line tells: brace expansion, quotes, escapes, `~`,
//! parameters the line assigned (`$D`, `${D}`, `${D:-x}`, `"$@"`), command substitutions (walked;
//! their output is unknown, except `$(pwd)`), field splitting of unquoted expansions, and which
//! words stay unquoted globs.

use brush_parser::ParserOptions;
use brush_parser::word::{
    BraceExpressionMember, BraceExpressionOrText, Parameter, ParameterExpr, ParameterTestType,
    SpecialParameter, WordPiece, WordPieceWithSource,
};

use super::invocation::{Arg, Input};
use super::walk::{State, Walker};

/// Words one brace expansion may produce before the word is called unknown.
const MAX_BRACE_WORDS: usize = 32;

/// The words one shell word becomes while they are being built.
#[derive(Default)]
struct Fields {
    done: Vec<Arg>,
    current: Arg,
    /// Whether `current` is a word yet (an empty quoted string is; an empty expansion is not).
    started: bool,
}

impl Fields {
    fn literal(&mut self, text: &str, quoted: bool) {
        self.current.text.push_str(text);
        self.current.glob |= !quoted && text.contains(['*', '?', '[']);
        self.started = true;
    }

    /// Appends an expansion's value; unquoted, it is split at blanks and may be a glob.
    fn expansion(&mut self, value: &Arg, quoted: bool) {
        if value.unknown {
            self.current.unknown = true;
            self.started = true;
        }
        self.current.glob |= value.glob;
        self.current.generated |= value.generated;
        if quoted {
            self.current.text.push_str(&value.text);
            self.started = true;
            return;
        }
        let text = value.text.as_str();
        if text.starts_with(char::is_whitespace) {
            self.split();
        }
        for (i, piece) in text.split_whitespace().enumerate() {
            if i > 0 {
                self.split();
            }
            self.literal(piece, false);
        }
        if text.ends_with(char::is_whitespace) {
            self.split();
        }
    }

    /// Ends the current word.
    fn split(&mut self) {
        if self.started {
            self.done.push(std::mem::take(&mut self.current));
        }
        self.current = Arg::default();
        self.started = false;
    }

    fn finish(mut self) -> Vec<Arg> {
        self.split();
        self.done
    }
}

/// What a parameter expands to.
enum Value {
    One(Arg),
    /// `$@` / `$*`: each positional parameter (`None`: unknown ones).
    All(Option<Vec<Arg>>, bool),
}

impl Walker {
    /// The words `raw` (one shell word as written) becomes.
    pub fn expand(&mut self, raw: &str, state: &mut State) -> Vec<Arg> {
        let options = ParserOptions::default();
        let words = match brush_parser::word::parse_brace_expansions(raw, &options) {
            Ok(Some(pieces)) => match brace_words(&pieces) {
                Some(words) => words,
                None => return vec![Arg::unknown()],
            },
            _ => vec![raw.to_string()],
        };
        let mut out = Vec::new();
        for word in words {
            match brush_parser::word::parse(&word, &options) {
                Ok(pieces) => {
                    let mut fields = Fields::default();
                    self.pieces(&word, &pieces, false, state, &mut fields);
                    out.extend(fields.finish());
                }
                Err(_) => out.push(Arg {
                    text: word,
                    unknown: true,
                    ..Arg::default()
                }),
            }
        }
        out
    }

    /// The one value `raw` becomes where bash does not split words (assignments, `${x:-default}`):
    /// its words joined, never a glob.
    pub fn expand_one(&mut self, raw: &str, state: &mut State) -> Arg {
        let words = self.expand(raw, state);
        let text: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
        Arg {
            text: text.join(" "),
            unknown: words.iter().any(|w| w.unknown),
            glob: false,
            generated: words.iter().any(|w| w.generated),
        }
    }

    fn pieces(
        &mut self,
        source: &str,
        pieces: &[WordPieceWithSource],
        quoted: bool,
        state: &mut State,
        out: &mut Fields,
    ) {
        for piece in pieces {
            let raw = source.get(piece.start_index..piece.end_index).unwrap_or("");
            match &piece.piece {
                WordPiece::Text(text) => out.literal(text, quoted),
                WordPiece::SingleQuotedText(text) => out.literal(text, true),
                // `$'…'` with escapes: decoding them is not worth it; the word is unknown.
                WordPiece::AnsiCQuotedText(text) if text.contains('\\') => {
                    out.expansion(&Arg::unknown(), true)
                }
                WordPiece::AnsiCQuotedText(text) => out.literal(text, true),
                WordPiece::DoubleQuotedSequence(inner)
                | WordPiece::GettextDoubleQuotedSequence(inner) => {
                    out.literal("", true);
                    self.pieces(source, inner, true, state, out);
                }
                WordPiece::TildePrefix(user) => out.literal(&format!("~{user}"), true),
                WordPiece::EscapeSequence(escaped) => {
                    let c = escaped.strip_prefix('\\').unwrap_or(escaped);
                    if quoted && !matches!(c, "$" | "`" | "\"" | "\\" | "\n") {
                        out.literal(escaped, true);
                    } else if c != "\n" {
                        out.literal(c, true);
                    }
                }
                WordPiece::CommandSubstitution(code)
                | WordPiece::BackquotedCommandSubstitution(code) => {
                    let value = self.substitution(code, state);
                    out.expansion(&value, quoted);
                }
                WordPiece::ArithmeticExpression(expr) => {
                    self.arithmetic(&expr.value, state);
                    out.expansion(&Arg::unknown(), quoted);
                }
                WordPiece::ParameterExpansion(expr) => match self.parameter(expr, raw, state) {
                    Value::One(value) => out.expansion(&value, quoted),
                    Value::All(values, concatenate) => all(values, concatenate, quoted, out),
                },
            }
        }
    }

    /// Runs `$(code)` in a subshell; its output is unknown, except that of a lone `pwd`.
    fn substitution(&mut self, code: &str, state: &mut State) -> Arg {
        if code.trim() == "pwd"
            && let Some(dir) = state.single_dir()
        {
            return Arg::known(dir.to_string_lossy());
        }
        self.code_with_input(code, &mut state.clone(), &Input::Inherited);
        Arg::unknown()
    }

    fn parameter(&mut self, expr: &ParameterExpr, raw: &str, state: &mut State) -> Value {
        match expr {
            ParameterExpr::Parameter {
                parameter,
                indirect: false,
            } => lookup(parameter, state),
            ParameterExpr::UseDefaultValues {
                parameter,
                indirect: false,
                test_type,
                default_value,
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                indirect: false,
                test_type,
                default_value,
            } => {
                let default = self.expand_one(default_value.as_deref().unwrap_or(""), state);
                let Value::One(value) = lookup(parameter, state) else {
                    return Value::One(Arg::unknown());
                };
                let unset_or_null = matches!(test_type, ParameterTestType::UnsetOrNull);
                match (value.unknown, value.text.is_empty()) {
                    (false, false) => Value::One(value),
                    (false, true) if unset_or_null => Value::One(default),
                    _ => Value::One(Arg::unknown()),
                }
            }
            ParameterExpr::UseAlternativeValue {
                parameter,
                indirect: false,
                alternative_value,
                ..
            } => {
                let alternative =
                    self.expand_one(alternative_value.as_deref().unwrap_or(""), state);
                match lookup(parameter, state) {
                    Value::One(v) if !v.unknown && v.text.is_empty() => Value::One(Arg::known("")),
                    Value::One(v) if !v.unknown => Value::One(alternative),
                    _ => Value::One(Arg::unknown()),
                }
            }
            _ => {
                // Patterns and replacements can hold substitutions of their own.
                if raw.contains("$(") || raw.contains('`') || raw.contains("<(") {
                    self.problem(format!("`{raw}` hides a command inside an expansion"));
                }
                Value::One(Arg::unknown())
            }
        }
    }
}

/// The value of a plain parameter.
fn lookup(parameter: &Parameter, state: &State) -> Value {
    match parameter {
        Parameter::Named(name) => Value::One(state.var(name)),
        Parameter::Positional(0) => Value::One(Arg::unknown()),
        Parameter::Positional(n) => Value::One(match &state.positional {
            Some(args) => usize::try_from(*n)
                .ok()
                .and_then(|n| args.get(n - 1))
                .cloned()
                .unwrap_or_default(),
            None => Arg::unknown(),
        }),
        Parameter::Special(SpecialParameter::AllPositionalParameters { concatenate }) => {
            Value::All(state.positional.clone(), *concatenate)
        }
        _ => Value::One(Arg::unknown()),
    }
}

/// Appends `$@`/`$*`: `"$@"` keeps each parameter a word, `"$*"` joins them, unquoted both split.
fn all(values: Option<Vec<Arg>>, concatenate: bool, quoted: bool, out: &mut Fields) {
    let Some(values) = values else {
        out.expansion(&Arg::unknown(), quoted);
        return;
    };
    if quoted && concatenate {
        let text: Vec<&str> = values.iter().map(|v| v.text.as_str()).collect();
        let joined = Arg {
            text: text.join(" "),
            unknown: values.iter().any(|v| v.unknown),
            ..Arg::default()
        };
        out.expansion(&joined, true);
        return;
    }
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.split();
        }
        out.expansion(value, quoted);
    }
}

/// The words a brace expansion produces (`None`: too many to follow).
fn brace_words(pieces: &[BraceExpressionOrText]) -> Option<Vec<String>> {
    let mut words = vec![String::new()];
    for piece in pieces {
        let options: Vec<String> = match piece {
            BraceExpressionOrText::Text(text) => vec![text.clone()],
            BraceExpressionOrText::Expr(members) => {
                let mut options = Vec::new();
                for member in members {
                    options.extend(member_words(member)?);
                }
                options
            }
        };
        let mut next = Vec::new();
        for word in &words {
            for option in &options {
                next.push(format!("{word}{option}"));
            }
        }
        if next.len() > MAX_BRACE_WORDS {
            return None;
        }
        words = next;
    }
    Some(words)
}

fn member_words(member: &BraceExpressionMember) -> Option<Vec<String>> {
    let sequence = |start: i64, end: i64, step: i64| -> Option<Vec<i64>> {
        let step = step.checked_abs().filter(|s| *s > 0).unwrap_or(1);
        let count = (end - start).checked_abs()? / step + 1;
        if count > MAX_BRACE_WORDS as i64 {
            return None;
        }
        let dir = if end >= start { step } else { -step };
        Some((0..count).map(|i| start + i * dir).collect())
    };
    match member {
        BraceExpressionMember::Child(pieces) => brace_words(pieces),
        BraceExpressionMember::NumberSequence {
            start,
            end,
            increment,
        } => Some(
            sequence(*start, *end, *increment)?
                .iter()
                .map(i64::to_string)
                .collect(),
        ),
        BraceExpressionMember::CharSequence {
            start,
            end,
            increment,
        } => Some(
            sequence(i64::from(*start as u32), i64::from(*end as u32), *increment)?
                .iter()
                .filter_map(|c| u32::try_from(*c).ok().and_then(char::from_u32))
                .map(String::from)
                .collect(),
        ),
    }
}
