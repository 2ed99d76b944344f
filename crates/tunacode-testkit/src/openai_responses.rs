//! The OpenAI Responses streaming (`POST /v1/responses`) wire format of the fake provider.

use crate::Reply;
use crate::wire::{RenderContext, SseReply, WireFormat};

/// OpenAI Responses streaming (`POST /v1/responses`).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpenAiResponses;

impl WireFormat for OpenAiResponses {
    fn name(&self) -> &str {
        "openai-responses"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with("/responses")
    }

    fn render(&self, _reply: &Reply, _ctx: &RenderContext<'_>) -> SseReply {
        SseReply::default()
    }
}
