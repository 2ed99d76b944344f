//! The Google Gemini streaming (`POST /v1beta/models/{model}:streamGenerateContent`) wire format of the fake provider.

use crate::Reply;
use crate::wire::{RenderContext, SseReply, WireFormat};

/// Google Gemini streaming (`POST /v1beta/models/{model}:streamGenerateContent`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Gemini;

impl WireFormat for Gemini {
    fn name(&self) -> &str {
        "gemini"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with(":streamGenerateContent")
    }

    fn render(&self, _reply: &Reply, _ctx: &RenderContext<'_>) -> SseReply {
        SseReply::default()
    }
}
