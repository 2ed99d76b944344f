//! Images inside a part's content, in pydantic-ai's shape (its `BinaryContent`: `{"kind": "binary",
//! "media_type": …, "data": <base64>}`), so a session with images reads in the original too. A tool
//! return with images has a list as its content: the text first, then the images.

use serde_json::{Value, json};

/// One image: its media type and base64 data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Image<'a> {
    /// E.g. `image/png`.
    pub media_type: &'a str,
    /// The bytes, base64.
    pub data: &'a str,
}

impl Image<'_> {
    /// A `data:` URL of the image.
    pub fn data_url(&self) -> String {
        format!("data:{};base64,{}", self.media_type, self.data)
    }
}

/// A content item holding an image.
pub fn image_item(media_type: &str, data: &str) -> Value {
    json!({"kind": "binary", "media_type": media_type, "data": data})
}

/// The image an item holds, if it is one.
pub fn as_image(item: &Value) -> Option<Image<'_>> {
    if item.get("kind").and_then(Value::as_str) != Some("binary") {
        return None;
    }
    let media_type = item.get("media_type").and_then(Value::as_str)?;
    let data = item.get("data").and_then(Value::as_str)?;
    media_type
        .starts_with("image/")
        .then_some(Image { media_type, data })
}

/// What holds a part's content: a [`crate::Content`], or a JSON value.
pub trait AsContent {
    /// The string it is, if it is one.
    fn content_str(&self) -> Option<&str>;
    /// The value it is, when it is not a string.
    fn content_value(&self) -> Option<&Value>;
}

impl AsContent for Value {
    fn content_str(&self) -> Option<&str> {
        self.as_str()
    }

    fn content_value(&self) -> Option<&Value> {
        (!self.is_string()).then_some(self)
    }
}

/// The images in a content value (none unless it is a list holding some).
pub fn images_in<C: AsContent + ?Sized>(content: &C) -> Vec<Image<'_>> {
    match content.content_value() {
        Some(Value::Array(items)) => items.iter().filter_map(as_image).collect(),
        _ => Vec::new(),
    }
}

/// Renders a JSON content value as text: strings as they are, a list with images as its text items and
/// an `[image: type]` line per image, anything else as compact JSON.
pub fn content_to_text<C: AsContent + ?Sized>(content: &C) -> String {
    content_text(content).into_owned()
}

/// [`content_to_text`], borrowing the text of a string (most content) instead of copying it.
pub fn content_text<C: AsContent + ?Sized>(content: &C) -> std::borrow::Cow<'_, str> {
    match (content.content_str(), content.content_value()) {
        (Some(text), _) => text.into(),
        (None, Some(other)) => rendered(other).into(),
        (None, None) => "".into(),
    }
}

fn rendered(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        // A tool return with images: its text, and a line naming each image (never the data).
        Value::Array(items) if items.iter().any(|i| as_image(i).is_some()) => items
            .iter()
            .map(|item| match as_image(item) {
                Some(image) => format!("[image: {}]", image.media_type),
                None => content_to_text(item),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The text of a content value without its images (all of it, for content without images).
pub fn text_without_images<C: AsContent + ?Sized>(content: &C) -> String {
    match content.content_value() {
        Some(Value::Array(items)) if items.iter().any(|i| as_image(i).is_some()) => items
            .iter()
            .filter(|i| as_image(i).is_none())
            .map(content_to_text)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => content_to_text(content),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn images_are_found_in_list_content_only() {
        let content = json!(["text", image_item("image/png", "AAAA"), {"kind": "binary", "media_type": "audio/wav", "data": "x"}]);
        let images = images_in(&content);
        assert_eq!(
            images,
            [Image {
                media_type: "image/png",
                data: "AAAA"
            }]
        );
        assert_eq!(images[0].data_url(), "data:image/png;base64,AAAA");
        assert!(images_in(&json!("text")).is_empty());
        assert_eq!(
            text_without_images(&content),
            "text\n{\"kind\":\"binary\",\"media_type\":\"audio/wav\",\"data\":\"x\"}"
        );
        assert_eq!(
            content_to_text(&json!(["done", image_item("image/png", "AAAA")])),
            "done\n[image: image/png]"
        );
    }
}
