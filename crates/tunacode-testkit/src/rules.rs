//! The request rules each real provider enforces on a conversation, so the fake refuses (HTTP 400)
//! what the real one would: every tool call answered and every answer matching a call; for
//! Anthropic, tool blocks only in a request that defines tools, and user and assistant turns
//! alternating from a user turn; for Gemini, user and model turns alternating.

use serde_json::Value;

/// What the request breaks, if anything.
pub type Verdict = Result<(), String>;

fn items<'a>(body: &'a Value, key: &str) -> &'a [Value] {
    body.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn offers_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

/// Turns alternate between `first` and `second`, starting with `first`.
fn alternate(roles: &[&str], first: &str, second: &str) -> Verdict {
    for (i, role) in roles.iter().enumerate() {
        let want = if i % 2 == 0 { first } else { second };
        if *role != want {
            return Err(format!(
                "turn {i} has role `{role}`: turns must alternate between `{first}` and `{second}`, starting with `{first}`"
            ));
        }
    }
    Ok(())
}

/// Every call id of a turn answered in the turn after it, and no answer without its call in the turn
/// before.
fn paired(calls: &[Vec<String>], answers: &[Vec<String>]) -> Verdict {
    for (i, asked) in calls.iter().enumerate() {
        let next = answers.get(i + 1).map_or(&[][..], Vec::as_slice);
        if let Some(id) = asked.iter().find(|id| !next.contains(id)) {
            return Err(format!(
                "tool call `{id}` (turn {i}) has no result in the turn after it"
            ));
        }
    }
    for (i, answered) in answers.iter().enumerate() {
        let before = i
            .checked_sub(1)
            .and_then(|b| calls.get(b))
            .map_or(&[][..], Vec::as_slice);
        if let Some(id) = answered.iter().find(|id| !before.contains(id)) {
            return Err(format!(
                "tool result `{id}` (turn {i}) answers no call of the turn before it"
            ));
        }
    }
    Ok(())
}

fn ids_of(blocks: &[Value], kind: &str, key: &str) -> Vec<String> {
    blocks
        .iter()
        .filter(|b| b["type"] == kind)
        .filter_map(|b| b[key].as_str().map(str::to_string))
        .collect()
}

/// Anthropic Messages.
pub fn anthropic(body: &Value) -> Verdict {
    let messages = items(body, "messages");
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect();
    alternate(&roles, "user", "assistant")?;
    let calls: Vec<Vec<String>> = messages
        .iter()
        .map(|m| ids_of(items(m, "content"), "tool_use", "id"))
        .collect();
    let answers: Vec<Vec<String>> = messages
        .iter()
        .map(|m| ids_of(items(m, "content"), "tool_result", "tool_use_id"))
        .collect();
    let has_tool_blocks = calls.iter().chain(&answers).any(|ids| !ids.is_empty());
    if has_tool_blocks && !offers_tools(body) {
        return Err(
            "Requests which include `tool_use` or `tool_result` blocks must define tools.".into(),
        );
    }
    paired(&calls, &answers)
}

/// Gemini `generateContent`.
pub fn gemini(body: &Value) -> Verdict {
    let contents = items(body, "contents");
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap_or(""))
        .collect();
    alternate(&roles, "user", "model")?;
    let names = |c: &Value, key: &str| -> Vec<String> {
        c["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p[key]["name"].as_str().map(str::to_string))
            .collect()
    };
    for (i, turn) in contents.iter().enumerate() {
        let mut called = names(turn, "functionCall");
        if called.is_empty() {
            continue;
        }
        let mut answered = contents
            .get(i + 1)
            .map_or_else(Vec::new, |n| names(n, "functionResponse"));
        called.sort();
        answered.sort();
        if called != answered {
            return Err(format!(
                "the function calls of turn {i} ({called:?}) must be answered by the next turn's responses ({answered:?})"
            ));
        }
    }
    Ok(())
}

/// OpenAI Chat Completions.
pub fn chat(body: &Value) -> Verdict {
    let messages = items(body, "messages");
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m["role"].as_str().unwrap_or("") {
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                if !open.iter().any(|o| o == id) {
                    return Err(format!(
                        "messages with role 'tool' must be a response to a preceding message with 'tool_calls' (message {i}, `{id}`)"
                    ));
                }
                open.retain(|o| o != id);
            }
            role => {
                if !open.is_empty() {
                    return Err(format!(
                        "an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' ({open:?} before message {i}, `{role}`)"
                    ));
                }
                open = m["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c["id"].as_str().map(str::to_string))
                    .collect();
            }
        }
    }
    Ok(())
}

/// OpenAI Responses.
pub fn responses(body: &Value) -> Verdict {
    let input = items(body, "input");
    // Sets: a long run's body holds thousands of calls, checked on every request.
    let mut called: Vec<&str> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (i, item) in input.iter().enumerate() {
        let id = item["call_id"].as_str().unwrap_or("");
        match item["type"].as_str().unwrap_or("") {
            "function_call" => {
                called.push(id);
                seen.insert(id);
            }
            "function_call_output" if !seen.contains(id) => {
                return Err(format!(
                    "No tool call found for function call output with call_id {id} (item {i})."
                ));
            }
            _ => {}
        }
    }
    let answered: std::collections::HashSet<&str> = input
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .filter_map(|i| i["call_id"].as_str())
        .collect();
    match called.iter().find(|id| !answered.contains(**id)) {
        Some(id) => Err(format!("No tool output found for function call {id}.")),
        None => Ok(()),
    }
}
