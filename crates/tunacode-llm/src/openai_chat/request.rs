//! Canonical history → Chat Completions request body.

use serde_json::{Map, Value, json};
use tunacode_protocol::{Message, Part, content_to_text};

use crate::client::ModelRequest;

/// What a retry prompt tells the model after the error text (as pydantic-ai phrased it).
const RETRY_SUFFIX: &str = "\n\nFix the errors and try again.";

/// What differs between servers that speak Chat Completions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChatDialect {
    /// OpenRouter: reasoning as `reasoning: {effort}`, and `reasoning_details` sent back on assistant
    /// messages.
    pub openrouter: bool,
}

impl ChatDialect {
    /// The dialect of a provider.
    pub fn for_settings(settings: &crate::provider::ProviderSettings) -> Self {
        ChatDialect {
            openrouter: settings.provider == "openrouter"
                || settings.base_url.contains("openrouter.ai"),
        }
    }
}

/// Builds the JSON body of a streaming Chat Completions request.
pub fn build_body(request: &ModelRequest, dialect: ChatDialect) -> Value {
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    for message in request.messages.iter().filter(|m| !m.is_legacy()) {
        if message.is_request() {
            push_request(&mut messages, message);
        } else {
            push_response(&mut messages, message, dialect);
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters}})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(effort) = &request.reasoning {
        if dialect.openrouter {
            body.insert("reasoning".into(), json!({"effort": effort}));
        } else {
            body.insert("reasoning_effort".into(), json!(effort));
        }
    }
    Value::Object(body)
}

fn push_request(out: &mut Vec<Value>, message: &Message) {
    for part in &message.parts {
        match part {
            // System prompts travel in `ModelRequest::system`, never inside history.
            Part::SystemPrompt(_) => {}
            Part::UserPrompt(p) => out.push(json!({"role": "user", "content": p.content})),
            Part::ToolReturn(p) => out.push(json!({
                "role": "tool", "tool_call_id": p.tool_call_id, "content": content_to_text(&p.content)})),
            Part::RetryPrompt(p) => {
                let text = format!("{}{RETRY_SUFFIX}", content_to_text(&p.content));
                match &p.tool_call_id {
                    Some(id) => out.push(json!({"role": "tool", "tool_call_id": id, "content": text})),
                    None => out.push(json!({"role": "user", "content": text})),
                }
            }
            Part::Text(t) => out.push(json!({"role": "user", "content": t.content})),
            Part::Thinking(_) | Part::ToolCall(_) | Part::Other(_) => {}
        }
    }
}

/// OpenRouter reasoning kept on the message's reasoning parts.
fn openrouter_details(message: &Message) -> Option<Value> {
    let mut all = Vec::new();
    for part in &message.parts {
        if let Part::Thinking(t) = part
            && let Some(details) = t.extra.get("provider_details")
            && details.get("provider").and_then(Value::as_str) == Some("openrouter")
            && let Some(Value::Array(items)) = details.get("reasoning_details")
        {
            all.extend(items.iter().cloned());
        }
    }
    (!all.is_empty()).then_some(Value::Array(all))
}

fn push_response(out: &mut Vec<Value>, message: &Message, dialect: ChatDialect) {
    let text = message.text();
    let calls: Vec<Value> = message
        .tool_calls()
        .map(|c| {
            let args = match &c.args {
                Value::String(s) => s.clone(),
                Value::Null => "{}".to_string(),
                other => other.to_string(),
            };
            json!({"id": c.tool_call_id, "type": "function",
                   "function": {"name": c.tool_name, "arguments": args}})
        })
        .collect();
    if text.is_empty() && calls.is_empty() {
        return;
    }
    let mut msg = Map::new();
    msg.insert("role".into(), json!("assistant"));
    // Some servers reject `null` content next to tool calls; an empty string is accepted everywhere.
    msg.insert("content".into(), json!(text));
    if !calls.is_empty() {
        msg.insert("tool_calls".into(), Value::Array(calls));
    }
    if dialect.openrouter
        && let Some(details) = openrouter_details(message)
    {
        msg.insert("reasoning_details".into(), details);
    }
    out.push(Value::Object(msg));
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tunacode_protocol::ToolSpec;

    #[test]
    fn history_maps_to_chat_messages() {
        let request = ModelRequest {
            model: "gpt-test".into(),
            system: "be brief".into(),
            messages: vec![
                Message::user("list"),
                Message::response(vec![
                    Part::thinking("hm", None),
                    Part::text("Looking."),
                    Part::tool_call("c1", "list_dir", json!({"directory": "."})),
                    Part::tool_call("c2", "read_file", json!("{\"file_path\":\"a\"}")),
                ]),
                Message::request(vec![
                    Part::tool_return("c1", "list_dir", "a\nb"),
                    Part::retry_prompt("c2", "read_file", "no such file"),
                ]),
                Message::from_value(json!({"thought": "legacy"})).unwrap(),
            ],
            tools: vec![ToolSpec {
                name: "list_dir".into(),
                description: "lists".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }],
            max_output_tokens: Some(100),
            temperature: None,
            reasoning: None,
        };
        let body = build_body(&request, ChatDialect::default());
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "list"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "list_dir", "arguments": "{\"directory\":\".\"}"}},
                    {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "{\"file_path\":\"a\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "a\nb"},
                {"role": "tool", "tool_call_id": "c2", "content": "no such file\n\nFix the errors and try again."}
            ])
        );
        assert_eq!(body["stream"], json!(true));
        assert_eq!(body["stream_options"], json!({"include_usage": true}));
        assert_eq!(body["tools"][0]["function"]["name"], json!("list_dir"));
        assert_eq!(body["max_tokens"], json!(100));
        assert!(body.get("temperature").is_none());
    }
}
