//! Images in the user's prompt: `@shot.png` mentions, files given with the message (`run --image`,
//! a path pasted in the UI) and images an editor or a script sends inline. Each is checked to be an
//! image by its first bytes (PNG, JPEG, GIF, WebP), at most 5 MiB, never a secret file, and goes to
//! the model as its image input, kept in the session in pydantic-ai's `BinaryContent` shape.

use base64::Engine;
use serde_json::Value;
use tunacode_protocol::image_item;
use tunacode_protocol::runtime::ImageInput;
use tunacode_tools::Workspace;

/// The largest image sent (Anthropic's limit per image).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// An image to send with a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptImage {
    /// Its file name, or `image N` for one sent inline.
    pub name: String,
    /// E.g. `image/png`.
    pub media_type: String,
    /// The bytes, base64.
    pub data: String,
}

/// The image type of `bytes` by their first bytes, if they are an image a model takes.
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        _ => None,
    }
}

/// `bytes` as an image named `name`, when they are one of a size a model takes.
pub fn image_of(name: &str, bytes: &[u8]) -> Result<PromptImage, String> {
    let Some(media_type) = sniff(bytes) else {
        return Err(format!("`{name}` is not a PNG, JPEG, GIF or WebP image"));
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(format!(
            "`{name}` is {:.1} MiB; images are sent up to 5 MiB",
            bytes.len() as f64 / 1_048_576.0
        ));
    }
    Ok(PromptImage {
        name: name.to_string(),
        media_type: media_type.to_string(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// The images given with a message (blocks: it reads files). A file may lie outside the workspace
/// (the user named it), but a secret file never goes.
pub fn load_images(
    inputs: &[ImageInput],
    workspace: &Workspace,
) -> Result<Vec<PromptImage>, String> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| match input {
            ImageInput::File { path } => {
                let given = workspace.root().join(path);
                // Where it really is (links followed) is what is judged.
                let path = std::fs::canonicalize(&given)
                    .map_err(|e| format!("cannot read the image `{}`: {e}", given.display()))?;
                if workspace.secrets().reason_for(&path).is_some() || !path.is_file() {
                    return Err(format!(
                        "`{}` may hold secrets or is not a file; it is not sent",
                        given.display()
                    ));
                }
                let bytes = read_capped(&path)
                    .map_err(|e| format!("cannot read the image `{}`: {e}", path.display()))?;
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                );
                image_of(&name, &bytes)
            }
            ImageInput::Inline { media_type, data } => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| format!("image {} is not valid base64: {e}", i + 1))?;
                let image = image_of(&format!("image {}", i + 1), &bytes)?;
                if image.media_type != *media_type {
                    return Err(format!(
                        "image {} says {media_type} but is {}",
                        i + 1,
                        image.media_type
                    ));
                }
                Ok(image)
            }
        })
        .collect()
}

/// At most [`MAX_IMAGE_BYTES`] and one byte of `path` (one byte more says it is too big).
fn read_capped(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(MAX_IMAGE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A prompt's content with images: its text, then each image (the file name as its identifier).
pub fn prompt_content(text: &str, images: &[PromptImage]) -> Value {
    let mut items = vec![Value::String(text.to_string())];
    for image in images {
        let mut item = image_item(&image.media_type, &image.data);
        if let Some(fields) = item.as_object_mut() {
            fields.insert("identifier".into(), Value::String(image.name.clone()));
        }
        items.push(item);
    }
    Value::Array(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0];

    #[test]
    fn images_are_known_by_their_bytes_and_checked() {
        assert_eq!(sniff(PNG), Some("image/png"));
        assert_eq!(sniff(b"\xFF\xD8\xFF\xE0rest"), Some("image/jpeg"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"plain text"), None);
        assert!(
            image_of("a.txt", b"text")
                .unwrap_err()
                .contains("not a PNG")
        );
        let big = [PNG, &vec![0u8; MAX_IMAGE_BYTES]].concat();
        assert!(
            image_of("big.png", &big)
                .unwrap_err()
                .contains("up to 5 MiB")
        );
    }

    #[test]
    fn files_and_inline_images_load_and_secrets_and_lies_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("shot.png"), PNG).unwrap();
        std::fs::write(dir.path().join(".env"), PNG).unwrap();
        let ws = Workspace::new(dir.path());
        let data = base64::engine::general_purpose::STANDARD.encode(PNG);
        let loaded = load_images(
            &[
                ImageInput::File {
                    path: "shot.png".into(),
                },
                ImageInput::Inline {
                    media_type: "image/png".into(),
                    data: data.clone(),
                },
            ],
            &ws,
        )
        .unwrap();
        assert_eq!(loaded[0].name, "shot.png");
        assert_eq!(loaded[1].data, data);
        assert!(
            load_images(
                &[ImageInput::File {
                    path: ".env".into()
                }],
                &ws
            )
            .is_err()
        );
        let lie = ImageInput::Inline {
            media_type: "image/jpeg".into(),
            data,
        };
        assert!(
            load_images(&[lie], &ws)
                .unwrap_err()
                .contains("says image/jpeg")
        );
        let content = prompt_content("what is this", &loaded[..1]);
        assert_eq!(content[1]["identifier"], "shot.png");
        assert_eq!(content[1]["kind"], "binary");
    }
}
