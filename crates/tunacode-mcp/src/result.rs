//! A `tools/call` result as the text the model reads: text blocks as they are, structured content as
//! JSON (when the text does not already carry it), embedded text resources with their URI, and a line
//! naming each image, audio clip, binary resource and resource link.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;
use tunacode_tools::ImageAttachment;

/// The model-facing text of `result`.
pub(crate) fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result.content.iter().map(block_text).collect();
    if let Some(structured) = &result.structured_content
        && !text_carries(&parts, structured)
    {
        parts.push(structured.to_string());
    }
    let text = parts.join("\n");
    if text.is_empty() {
        "(no output)".to_string()
    } else {
        text
    }
}

/// The images of `result`, sent to the model with its text where the provider takes them.
pub(crate) fn result_images(result: &CallToolResult) -> Vec<ImageAttachment> {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(image) if image.mime_type.starts_with("image/") => {
                Some(ImageAttachment {
                    media_type: image.mime_type.clone(),
                    data: image.data.clone(),
                })
            }
            _ => None,
        })
        .collect()
}

/// Whether the text already carries the structured content (servers are asked to send both): a text
/// part that is the same JSON, or text that holds every value of it (`{"content": "<the text>"}`).
fn text_carries(parts: &[String], structured: &Value) -> bool {
    if parts
        .iter()
        .any(|p| serde_json::from_str::<Value>(p).is_ok_and(|v| &v == structured))
    {
        return true;
    }
    let text = parts.join("\n");
    let mut leaves = Vec::new();
    collect_leaves(structured, &mut leaves);
    !text.is_empty() && !leaves.is_empty() && leaves.iter().all(|leaf| text.contains(leaf.as_str()))
}

/// The text of every string, number and boolean in `value`.
fn collect_leaves(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.trim().to_string()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(b) => out.push(b.to_string()),
        Value::Array(items) => items.iter().for_each(|v| collect_leaves(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_leaves(v, out)),
        Value::Null => {}
    }
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => format!(
            "[image: {}, {} bytes]",
            image.mime_type,
            decoded_len(&image.data)
        ),
        ContentBlock::Audio(audio) => format!(
            "[audio: {}, {} bytes; not passed to the model]",
            audio.mime_type,
            decoded_len(&audio.data)
        ),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes]",
                mime_type.as_deref().unwrap_or("binary"),
                decoded_len(blob)
            ),
            other => format!("[resource of a kind this client does not know: {other:?}]"),
        },
        ContentBlock::ResourceLink(link) => {
            let mut line = format!("[resource link {}: {}", link.uri, link.name);
            if let Some(description) = &link.description {
                line.push_str(" — ");
                line.push_str(description);
            }
            line.push(']');
            line
        }
        other => format!("[content of a kind this client does not know: {other:?}]"),
    }
}

/// The size of base64 `data` once decoded.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(value: Value) -> CallToolResult {
        serde_json::from_value(value).expect("a valid result")
    }

    #[test]
    fn text_and_structured_content_are_kept_once() {
        let both = result(json!({
            "content": [{"type": "text", "text": "{\"a\": 1}"}],
            "structuredContent": {"a": 1}
        }));
        assert_eq!(result_text(&both), "{\"a\": 1}");
        let wrapped = result(json!({
            "content": [{"type": "text", "text": "line one\n"}],
            "structuredContent": {"content": "line one\n"}
        }));
        assert_eq!(result_text(&wrapped), "line one\n");
        let only_structured = result(json!({"content": [], "structuredContent": {"sum": 3}}));
        assert_eq!(result_text(&only_structured), "{\"sum\":3}");
        let different = result(json!({
            "content": [{"type": "text", "text": "done"}],
            "structuredContent": {"ok": true}
        }));
        assert_eq!(result_text(&different), "done\n{\"ok\":true}");
    }

    #[test]
    fn images_resources_and_links_are_named() {
        let mixed = result(json!({"content": [
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
            {"type": "resource_link", "uri": "test://x", "name": "x", "description": "an x"}
        ]}));
        assert_eq!(
            result_text(&mixed),
            "[image: image/png, 8 bytes]\n\
             [resource file:///a.txt]\nhello\n[resource link test://x: x — an x]"
        );
        assert_eq!(
            result_images(&mixed),
            [ImageAttachment {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into()
            }]
        );
        assert_eq!(result_text(&result(json!({"content": []}))), "(no output)");
    }
}
