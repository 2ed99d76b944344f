//! `/context`: the next request measured as the provider would receive it. The request is built as a
//! call builds it (the system prompt, every callable tool, the prepared history and the state note)
//! and serialized by the provider's own wire builder; each part's size is what its removal takes
//! off the body, so the parts add up to the whole. Tokens are the model's counter applied to the
//! whole body, shared among the parts by their characters.

use std::sync::Arc;

use tunacode_llm::{ModelRequest, request_body};
use tunacode_protocol::runtime::{ContextBreakdown, ContextItem, ContextSection};
use tunacode_protocol::{MCP_TOOL_PREFIX, Message, Part, ToolSpec, content_to_text};

use super::offer::{callable_tools, state_note};
use crate::agent::Agent;
use crate::history::prepare_history;
use crate::instructions::{InstructionFile, render_instructions};
use crate::skills::{Skill, render_skills};
use crate::tokens::TokenCounter;

/// The characters of each part of the request, in the order [`SECTIONS`] names them, and the
/// whole body.
struct Measured {
    parts: [usize; 8],
    body: String,
}

/// The sections, in the order the request carries them.
const SECTIONS: [&str; 8] = [
    "system prompt",
    "instruction files",
    "skills",
    "built-in tools",
    "MCP tools",
    "conversation",
    "attachments",
    "request framing",
];

/// The parts of the next request to `agent`'s model (`instructions` and `skills` are those its
/// system prompt was composed with). Blocks: it serializes the history several times.
pub fn context_breakdown(
    agent: &Agent,
    instructions: &[InstructionFile],
    skills: &[Skill],
) -> ContextBreakdown {
    let measured = measure(agent, instructions, skills);
    let counter = TokenCounter::for_model(&agent.provider.provider, &agent.options.model);
    let total = counter.count_loaded(&measured.body);
    let full = chars(&measured.body).max(1);
    let tokens = |c: usize| (c as f64 * total as f64 / full as f64).round() as u64;
    let mut sections: Vec<ContextSection> = SECTIONS
        .iter()
        .zip(measured.parts)
        .map(|(name, c)| ContextSection {
            name: name.to_string(),
            tokens: tokens(c),
            items: Vec::new(),
        })
        .collect();
    sections[1].items = instructions
        .iter()
        .map(|f| item(f.path.display().to_string(), &f.text, tokens))
        .collect();
    sections[2].items = skills
        .iter()
        .map(|s| item(s.name.clone(), &s.description, tokens))
        .collect();
    let context = agent.options.context;
    ContextBreakdown {
        model: agent.options.model.clone(),
        window: context.window,
        counter: match counter {
            TokenCounter::OpenAi => "o200k".into(),
            TokenCounter::Estimate => "estimate".into(),
        },
        // The parts are shares of the whole: their sum is the total (rounding aside).
        total: sections.iter().map(|s| s.tokens).sum(),
        sections,
        compact_at: context
            .window
            .map(|w| (w as f64 * context.threshold) as u64),
    }
}

/// Builds the request as a call would and measures each part by what its removal takes off.
fn measure(agent: &Agent, instructions: &[InstructionFile], skills: &[Skill]) -> Measured {
    let tools = callable_tools(agent).specs();
    let builtin: Vec<ToolSpec> = tools
        .iter()
        .filter(|t| !t.name.starts_with(MCP_TOOL_PREFIX))
        .cloned()
        .collect();
    let messages: Arc<Vec<Message>> = {
        let session = agent.session.lock();
        prepare_history(&session.messages, &agent.options.prune)
    };
    let system = agent.options.system_prompt.clone();
    let size = |system: &str, tools: &[ToolSpec], messages: &[Message]| {
        let request = ModelRequest {
            model: agent.options.provider_model.clone(),
            system: system.to_string(),
            messages: Arc::new(messages.to_vec()),
            nudge: state_note(agent),
            tools: tools.into(),
            max_output_tokens: agent.options.max_output_tokens,
            ..ModelRequest::default()
        };
        request_body(&agent.provider, &request).to_string()
    };
    let body = size(&system, &tools, &messages);
    let full = chars(&body);
    let taken = |without: String| full.saturating_sub(chars(&without));
    let all_tools = taken(size(&system, &[], &messages));
    let mcp = taken(size(&system, &builtin, &messages));
    let system_all = taken(size("", &tools, &messages));
    let conversation = taken(size(&system, &tools, &[]));
    let instruction = escaped(&render_instructions(instructions)).min(system_all);
    let skill = escaped(&render_skills(skills)).min(system_all - instruction);
    let attached = attachments(&messages).min(conversation);
    let mut parts = [
        system_all - instruction - skill,
        instruction,
        skill,
        all_tools.saturating_sub(mcp),
        mcp,
        conversation - attached,
        attached,
        0,
    ];
    parts[7] = full.saturating_sub(parts.iter().sum());
    Measured { parts, body }
}

fn item(name: String, text: &str, tokens: impl Fn(usize) -> u64) -> ContextItem {
    ContextItem {
        name,
        tokens: tokens(escaped(text)),
    }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// Characters of `text` inside a JSON string (its escapes counted).
fn escaped(text: &str) -> usize {
    chars(&serde_json::Value::String(text.to_string()).to_string()).saturating_sub(2)
}

/// Characters of the files attached to the user's prompts (`<file path="…">` blocks).
fn attachments(messages: &[Message]) -> usize {
    messages
        .iter()
        .filter(|m| m.in_conversation() && m.is_request())
        .flat_map(|m| m.parts.iter())
        .filter_map(|p| match p {
            Part::UserPrompt(u) => Some(content_to_text(&u.content)),
            _ => None,
        })
        .map(|text| {
            let mut rest = text.as_str();
            let mut found = 0;
            while let Some(start) = rest.find("\n\n<file path=\"") {
                let block = &rest[start..];
                let end = block
                    .find("\n</file>")
                    .map_or(block.len(), |e| e + "\n</file>".len());
                found += escaped(&block[..end]);
                rest = &block[end..];
            }
            found
        })
        .sum()
}
