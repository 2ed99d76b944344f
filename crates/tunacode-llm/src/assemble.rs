//! [`ResponseAssembler`]: folds a stream of [`ModelEvent`]s into a canonical response [`Message`],
//! keeping parts in the order they first appeared.

use std::collections::HashMap;

use serde_json::{Map, Value};
use tunacode_protocol::{Extra, Message, Part, Usage};

use crate::client::{ModelEvent, PartTarget};

/// Builds one response message from model events.
#[derive(Debug, Default)]
pub struct ResponseAssembler {
    parts: Vec<Part>,
    /// Tool call index → (position in `parts`, raw argument text).
    calls: HashMap<usize, (usize, String)>,
    usage: Option<Usage>,
    finish_reason: Option<String>,
    response_extra: Map<String, Value>,
}

impl ResponseAssembler {
    /// An empty assembler.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one event.
    pub fn push(&mut self, event: &ModelEvent) {
        match event {
            ModelEvent::TextDelta(text) if text.is_empty() => {}
            ModelEvent::TextDelta(text) => match self.parts.last_mut() {
                Some(Part::Text(t)) => t.content.push_str(text),
                _ => self.parts.push(Part::text(text.clone())),
            },
            ModelEvent::ThinkingDelta(text) if text.is_empty() => {}
            ModelEvent::ThinkingDelta(text) => match self.parts.last_mut() {
                Some(Part::Thinking(t)) => t.content.push_str(text),
                _ => self.parts.push(Part::thinking(text.clone(), None)),
            },
            ModelEvent::ThinkingStart => self.parts.push(Part::thinking("", None)),
            ModelEvent::ThinkingSignature(sig) => {
                if let Part::Thinking(t) = self.last_or_new(PartTarget::Thinking) {
                    t.signature.get_or_insert_with(String::new).push_str(sig);
                }
            }
            ModelEvent::PartDetails { target, details } => self.part_details(*target, details),
            ModelEvent::ResponseDetails(details) => {
                for (k, v) in details {
                    self.response_extra.insert(k.clone(), v.clone());
                }
            }
            ModelEvent::ToolCallStart { index, id, name } => self.start_call(*index, id, name),
            ModelEvent::ToolCallArgs { index, fragment } => {
                if !self.calls.contains_key(index) {
                    self.start_call(*index, "", "");
                }
                if let Some((_, args)) = self.calls.get_mut(index) {
                    args.push_str(fragment);
                }
            }
            ModelEvent::Usage(usage) => self.usage = Some(*usage),
            ModelEvent::Finish(reason) => self.finish_reason = Some(reason.clone()),
            ModelEvent::Retrying { .. } => {}
        }
    }

    /// Merges provider details into the part they target.
    fn part_details(&mut self, target: PartTarget, details: &Map<String, Value>) {
        let extra = match self.last_or_new(target) {
            Part::Thinking(t) => &mut t.extra,
            Part::Text(t) => &mut t.extra,
            Part::ToolCall(c) => &mut c.extra,
            _ => return,
        };
        merge_details(extra, details);
    }

    /// Starts the tool call at `index`. Some servers repeat the header: a call already started gets
    /// whatever it was missing.
    fn start_call(&mut self, index: usize, id: &str, name: &str) {
        if let Some((pos, _)) = self.calls.get(&index) {
            if let Some(Part::ToolCall(call)) = self.parts.get_mut(*pos) {
                if call.tool_name.is_empty() {
                    call.tool_name = name.into();
                }
                if call.tool_call_id.is_empty() {
                    call.tool_call_id = id.to_string();
                }
            }
            return;
        }
        self.calls.insert(index, (self.parts.len(), String::new()));
        self.parts.push(Part::tool_call(
            id.to_string(),
            name.to_string(),
            Value::Null,
        ));
    }

    /// The part a detail event targets: the last of its kind, or a new one.
    fn last_or_new(&mut self, target: PartTarget) -> &mut Part {
        let found = match target {
            PartTarget::Thinking => self
                .parts
                .iter()
                .rposition(|p| matches!(p, Part::Thinking(_))),
            PartTarget::Text => self.parts.iter().rposition(|p| matches!(p, Part::Text(_))),
            PartTarget::ToolCall(index) => {
                if !self.calls.contains_key(&index) {
                    self.push(&ModelEvent::ToolCallStart {
                        index,
                        id: String::new(),
                        name: String::new(),
                    });
                }
                self.calls.get(&index).map(|(pos, _)| *pos)
            }
        };
        let pos = match found {
            Some(pos) => pos,
            None => {
                self.parts.push(match target {
                    PartTarget::Text => Part::text(""),
                    _ => Part::thinking("", None),
                });
                self.parts.len() - 1
            }
        };
        &mut self.parts[pos]
    }

    /// The usage reported so far.
    pub fn usage(&self) -> Option<Usage> {
        self.usage
    }

    /// The finish reason, once seen.
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// The text streamed so far (all text parts).
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text(t) => Some(t.content.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The finished response. Argument text that is a JSON object becomes an object; an empty text
    /// becomes `{}`; anything else stays a string so the engine can tell the model it was malformed.
    /// Calls without an id get one (`call_<n>`).
    pub fn finish(mut self) -> Message {
        let mut calls: Vec<_> = self.calls.drain().collect();
        calls.sort_by_key(|(index, _)| *index);
        for (index, (pos, args)) in calls {
            if let Some(Part::ToolCall(call)) = self.parts.get_mut(pos) {
                call.args = parse_args(&args).into();
                if call.tool_call_id.is_empty() {
                    call.tool_call_id = format!("call_{index}_{:08x}", fastrand::u32(..));
                }
            }
        }
        let mut message = Message::response(self.parts);
        if !self.response_extra.is_empty() {
            message.extra.insert(
                "provider_details".into(),
                Value::Object(self.response_extra),
            );
        }
        if let Some(reason) = self.finish_reason {
            message
                .extra
                .insert("finish_reason".into(), Value::String(reason));
        }
        message
    }
}

/// Merges `details` into `extra["provider_details"]`.
fn merge_details(extra: &mut Extra, details: &Map<String, Value>) {
    let entry = extra.get_or_insert_with("provider_details", || Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Value::Object(map) = entry {
        for (k, v) in details {
            map.insert(k.clone(), v.clone());
        }
    }
}

fn parse_args(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Default::default());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Value::Object(map),
        _ => Value::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn assembles_parts_in_order_with_split_arguments() {
        let mut a = ResponseAssembler::new();
        let events = [
            ModelEvent::ThinkingDelta("let me ".into()),
            ModelEvent::ThinkingDelta("look".into()),
            ModelEvent::TextDelta("Reading ".into()),
            ModelEvent::TextDelta("both.".into()),
            ModelEvent::ToolCallStart {
                index: 0,
                id: "c0".into(),
                name: "read_file".into(),
            },
            ModelEvent::ToolCallStart {
                index: 1,
                id: "c1".into(),
                name: "grep".into(),
            },
            ModelEvent::ToolCallArgs {
                index: 0,
                fragment: "{\"file_".into(),
            },
            ModelEvent::ToolCallArgs {
                index: 1,
                fragment: "".into(),
            },
            ModelEvent::ToolCallArgs {
                index: 0,
                fragment: "path\":\"a\"}".into(),
            },
            ModelEvent::Finish("tool_calls".into()),
        ];
        for e in &events {
            a.push(e);
        }
        assert_eq!(a.text(), "Reading both.");
        let msg = a.finish();
        assert_eq!(
            msg.parts,
            vec![
                Part::thinking("let me look", None),
                Part::text("Reading both."),
                Part::tool_call("c0", "read_file", json!({"file_path": "a"})),
                Part::tool_call("c1", "grep", json!({})),
            ]
        );
        assert_eq!(msg.extra["finish_reason"], "tool_calls");
    }

    #[test]
    fn separate_thinking_blocks_signatures_and_opaque_details_are_kept() {
        let mut a = ResponseAssembler::new();
        let mut sig = Map::new();
        sig.insert("thought_signature".into(), json!("c2ln"));
        let events = [
            ModelEvent::ThinkingStart,
            ModelEvent::ThinkingDelta("one".into()),
            ModelEvent::ThinkingSignature("AB".into()),
            ModelEvent::ThinkingSignature("CD".into()),
            ModelEvent::ThinkingStart,
            ModelEvent::ThinkingDelta("two".into()),
            ModelEvent::ToolCallStart {
                index: 0,
                id: "t".into(),
                name: "glob".into(),
            },
            ModelEvent::PartDetails {
                target: PartTarget::ToolCall(0),
                details: sig.clone(),
            },
            ModelEvent::ResponseDetails(sig.clone()),
            ModelEvent::TextDelta(String::new()),
        ];
        for e in &events {
            a.push(e);
        }
        let msg = a.finish();
        assert_eq!(msg.parts.len(), 3);
        assert_eq!(msg.parts[0], Part::thinking("one", Some("ABCD".into())));
        assert_eq!(msg.parts[1], Part::thinking("two", None));
        match &msg.parts[2] {
            Part::ToolCall(c) => assert_eq!(
                c.extra["provider_details"],
                json!({"thought_signature": "c2ln"})
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            msg.extra["provider_details"],
            json!({"thought_signature": "c2ln"})
        );
    }

    #[test]
    fn malformed_arguments_stay_text_and_missing_ids_are_made() {
        let mut a = ResponseAssembler::new();
        a.push(&ModelEvent::ToolCallArgs {
            index: 0,
            fragment: "{\"x\": ".into(),
        });
        let msg = a.finish();
        let call = msg.tool_calls().next().unwrap();
        assert_eq!(call.args, json!("{\"x\": "));
        assert!(call.tool_call_id.starts_with("call_0_"));
    }
}
