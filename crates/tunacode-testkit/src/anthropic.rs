//! The Anthropic Messages streaming (`POST /v1/messages`) wire format of the fake provider.

use crate::Reply;
use crate::wire::{RenderContext, SseReply, WireFormat};

/// Anthropic Messages streaming (`POST /v1/messages`).
#[derive(Debug, Clone, Copy, Default)]
pub struct AnthropicMessages;

impl WireFormat for AnthropicMessages {
    fn name(&self) -> &str {
        "anthropic-messages"
    }

    fn handles(&self, path: &str) -> bool {
        path.ends_with("/messages")
    }

    fn render(&self, _reply: &Reply, _ctx: &RenderContext<'_>) -> SseReply {
        SseReply::default()
    }
}
