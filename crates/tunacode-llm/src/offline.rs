//! Decoding a whole response body without the network: the SSE framing and a wire format's decoder,
//! then the [`ResponseAssembler`] building the message — the same path a live stream takes after the
//! bytes arrive. For fuzzing and for replaying recorded traffic.

use bytes::Bytes;
use eventsource_stream::Eventsource;
use futures::StreamExt;
use tunacode_protocol::Message;

use crate::anthropic::AnthropicStreamDecoder;
use crate::assemble::ResponseAssembler;
use crate::error::LlmError;
use crate::gemini::GeminiStreamDecoder;
use crate::http::{Decoded, StreamDecoder};
use crate::openai_chat::ChatStreamDecoder;
use crate::openai_responses::ResponsesStreamDecoder;
use crate::provider::WireApi;
use crate::sse::SseEvent;

/// The message a response body in `wire`'s format decodes to (whatever it holds when the body ends
/// early), or the error a client would report.
pub fn decode_response(wire: WireApi, body: &[u8]) -> Result<Message, LlmError> {
    let mut decoder: Box<dyn StreamDecoder> = match wire {
        WireApi::OpenAiChat => Box::new(ChatStreamDecoder::default()),
        WireApi::OpenAiResponses => Box::new(ResponsesStreamDecoder::default()),
        WireApi::Anthropic => Box::new(AnthropicStreamDecoder::default()),
        WireApi::Gemini => Box::new(GeminiStreamDecoder::default()),
    };
    let chunks = futures::stream::iter([Ok::<_, std::convert::Infallible>(
        Bytes::copy_from_slice(body),
    )]);
    let mut events = chunks.eventsource();
    let mut assembler = ResponseAssembler::new();
    futures::executor::block_on(async {
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| LlmError::InvalidResponse {
                message: format!("unreadable event stream: {e}"),
            })?;
            let event = SseEvent {
                event: event.event,
                data: event.data,
            };
            match decoder.decode(&event)? {
                Decoded::Done => break,
                Decoded::Events(list) => {
                    for e in list {
                        assembler.push(&e);
                    }
                }
            }
        }
        Ok(assembler.finish())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_body_decodes_to_its_message_and_garbage_is_an_error_not_a_panic() {
        let body = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n\
                     data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
                     data: [DONE]\n\n";
        let message = decode_response(WireApi::OpenAiChat, body).unwrap();
        assert_eq!(message.text(), "hi");
        for wire in [
            WireApi::OpenAiChat,
            WireApi::OpenAiResponses,
            WireApi::Anthropic,
            WireApi::Gemini,
        ] {
            let _ = decode_response(wire, b"data: {not json\n\n");
            let _ = decode_response(wire, b"\xff\xfe\x00data:\n\n");
        }
    }
}
