//! [`check_choice`]: one cheap real request to see that the chosen endpoint, key and model work, with
//! the outcome in plain words.

use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use tunacode_llm::{LlmError, ModelEvent, ModelRequest, ProviderSettings, create_client};
use tunacode_protocol::Message;

/// Longest silence allowed inside the check's stream.
const IDLE_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest the whole check may take.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends one tiny request ("ping", no tools, at most 16 output tokens, no retries) with the real client.
/// `Ok` when the model starts answering or finishes cleanly; otherwise what went wrong, in plain words
/// ("The key was rejected (HTTP 401): …", "Could not connect to http://…: connection refused", …).
/// `settings` and `model` come from the core's settings resolution over the config as setup will save
/// it, so the check uses exactly what the run will use.
pub async fn check_choice(settings: ProviderSettings, model: &str) -> Result<(), String> {
    check_with(settings, model, IDLE_TIMEOUT, TOTAL_TIMEOUT).await
}

async fn check_with(
    mut settings: ProviderSettings,
    model: &str,
    idle: Duration,
    total: Duration,
) -> Result<(), String> {
    settings.retry.max_retries = 0;
    settings.idle_timeout = idle;
    // Auth errors would otherwise say to set a variable; setup is about to set it.
    settings.key_hint = None;
    let endpoint = settings.base_url.clone();
    let client = create_client(&settings).map_err(|e| describe(&e, &endpoint))?;
    let request = ModelRequest {
        model: model.to_string(),
        messages: vec![Message::user("ping")].into(),
        max_output_tokens: Some(16),
        ..ModelRequest::default()
    };
    let cancel = CancellationToken::new();
    let mut stream = client.stream(request, cancel.clone());
    let outcome = tokio::time::timeout(total, async {
        loop {
            match stream.next().await {
                None => return Ok(()),
                // Bookkeeping events do not yet show that the model answers.
                Some(Ok(
                    ModelEvent::Retrying { .. }
                    | ModelEvent::ResponseDetails(_)
                    | ModelEvent::PartDetails { .. }
                    | ModelEvent::ThinkingStart
                    | ModelEvent::ThinkingSignature(_),
                )) => {}
                Some(Ok(_)) => return Ok(()),
                Some(Err(e)) => return Err(describe(&e, &endpoint)),
            }
        }
    })
    .await;
    cancel.cancel();
    match outcome {
        Ok(result) => result,
        Err(_) => Err(format!(
            "No answer from {endpoint} within {} s.",
            total.as_secs()
        )),
    }
}

/// A model-call error in plain words for someone setting up.
fn describe(err: &LlmError, endpoint: &str) -> String {
    let with = |text: String, message: &str| {
        let message = message.trim();
        if message.is_empty() {
            text
        } else {
            format!("{text}: {message}")
        }
    };
    match err {
        LlmError::Auth { status, message } => {
            with(format!("The key was rejected (HTTP {status})"), message)
        }
        LlmError::Network { message } if message.starts_with("error sending request") => {
            format!(
                "Could not connect to {endpoint}: {}",
                connect_reason(message)
            )
        }
        LlmError::Network { message } => {
            with(format!("The connection to {endpoint} broke off"), message)
        }
        LlmError::IdleTimeout(d) => format!(
            "{endpoint} took the request but sent nothing for {} s.",
            d.as_secs()
        ),
        LlmError::BadRequest { status, message } => with(
            format!("The provider refused the request (HTTP {status})"),
            message,
        ),
        LlmError::RateLimit { message, .. } => with(
            "The provider is rate limiting this key (HTTP 429); try again in a moment".into(),
            message,
        ),
        LlmError::QuotaExceeded { message, .. } => {
            with("The account has no credit or quota left".into(), message)
        }
        LlmError::Overloaded { status, message } => with(
            format!("The provider is overloaded (HTTP {status}); try again in a moment"),
            message,
        ),
        LlmError::Server { status, message } => {
            with(format!("The provider failed (HTTP {status})"), message)
        }
        LlmError::InvalidResponse { message } => with(
            format!("{endpoint} did not answer like a model server"),
            message,
        ),
        LlmError::ContextOverflow { message } => {
            with("The provider refused the request".into(), message)
        }
        LlmError::Config { message } => message.clone(),
        LlmError::Cancelled => "The check was cancelled.".into(),
    }
}

/// The cause of a failed connection, from reqwest's error chain.
fn connect_reason(message: &str) -> String {
    let lower = message.to_ascii_lowercase();
    if lower.contains("connection refused") {
        "connection refused".into()
    } else if lower.contains("dns error") || lower.contains("failed to lookup") {
        "the host name was not found".into()
    } else if lower.contains("timed out") {
        "the connection timed out".into()
    } else if lower.contains("certificate") || lower.contains("tls") {
        format!("TLS error ({})", last_cause(message))
    } else {
        last_cause(message)
    }
}

/// The innermost cause of a `a: b: c` error chain.
fn last_cause(message: &str) -> String {
    message
        .rsplit(": ")
        .next()
        .unwrap_or(message)
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::choice::provider_settings;
    use tunacode_protocol::runtime::SetupChoice;
    use tunacode_testkit::{FakeProvider, Reply, Turn};

    fn choice(base_url: String) -> SetupChoice {
        SetupChoice {
            provider: "local".into(),
            model: "qwen3".into(),
            base_url: Some(base_url),
            wire_api: Some("openai-chat".into()),
            key_env: Some("LOCAL_API_KEY".into()),
            api_key: Some("sk-test".into()),
        }
    }

    async fn check(choice: &SetupChoice) -> Result<(), String> {
        check_choice(provider_settings(choice).unwrap(), &choice.model).await
    }

    #[tokio::test]
    async fn a_text_turn_is_ok_with_one_small_request() {
        let fake = FakeProvider::start(vec![Turn::text("pong")]);
        assert_eq!(check(&choice(fake.base_url())).await, Ok(()));
        let requests = fake.requests();
        assert_eq!(requests.len(), 1);
        let body = &requests[0].body;
        assert_eq!(body["model"], "qwen3");
        assert!(
            body.get("tools")
                .is_none_or(|t| t.as_array().is_none_or(|a| a.is_empty()))
        );
        assert!(body.to_string().contains("ping"));
        assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test"));
        let max = body
            .get("max_tokens")
            .or_else(|| body.get("max_completion_tokens"));
        assert_eq!(max, Some(&serde_json::json!(16)), "{body}");
        // A clean finish with no text also counts.
        let fake = FakeProvider::start(vec![Turn::Reply(Reply::default())]);
        assert_eq!(check(&choice(fake.base_url())).await, Ok(()));
    }

    #[tokio::test]
    async fn a_rejected_key_says_so_and_is_not_retried() {
        let fake = FakeProvider::start(vec![
            Turn::http_error(
                401,
                &[],
                r#"{"error": {"message": "Incorrect API key provided"}}"#,
            ),
            Turn::text("never"),
        ]);
        let err = check(&choice(fake.base_url())).await.unwrap_err();
        assert!(err.starts_with("The key was rejected (HTTP 401)"), "{err}");
        assert!(err.contains("Incorrect API key provided"), "{err}");
        assert!(!err.contains("LOCAL_API_KEY"), "{err}");
        assert_eq!(fake.turns_served(), 1);
    }

    #[tokio::test]
    async fn an_unknown_model_keeps_the_providers_message_and_a_5xx_is_not_retried() {
        let fake = FakeProvider::start(vec![
            Turn::http_error(
                404,
                &[],
                r#"{"error": {"message": "model \"qwen3\" not found, try pulling it first"}}"#,
            ),
            Turn::http_error(503, &[], r#"{"error": {"message": "busy"}}"#),
            Turn::text("never"),
        ]);
        let err = check(&choice(fake.base_url())).await.unwrap_err();
        assert!(
            err.contains("HTTP 404") && err.contains("not found, try pulling it first"),
            "{err}"
        );
        let err = check(&choice(fake.base_url())).await.unwrap_err();
        assert!(err.contains("HTTP 503") && err.contains("busy"), "{err}");
        assert_eq!(fake.turns_served(), 2);
    }

    #[tokio::test]
    async fn an_unused_port_is_a_plain_connection_error() {
        let port = {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/v1");
        let err = check(&choice(url.clone())).await.unwrap_err();
        assert_eq!(
            err,
            format!("Could not connect to {url}: connection refused")
        );
    }

    #[tokio::test]
    async fn a_silent_server_times_out_in_plain_words() {
        // Against a server that takes the request and sends nothing, with the given timeouts.
        async fn stalled(idle: Duration, total: Duration) -> String {
            let fake = FakeProvider::start(vec![Turn::Reply(Reply {
                text: Some("late".into()),
                ending: tunacode_testkit::Ending::Stall { after_events: 0 },
                ..Reply::default()
            })]);
            let c = choice(fake.base_url());
            check_with(provider_settings(&c).unwrap(), &c.model, idle, total)
                .await
                .unwrap_err()
        }
        let err = stalled(Duration::from_millis(200), Duration::from_secs(5)).await;
        assert!(err.contains("sent nothing"), "{err}");
        let err = stalled(Duration::from_secs(5), Duration::from_millis(200)).await;
        assert!(err.starts_with("No answer from http://127.0.0.1:"), "{err}");
    }

    #[test]
    fn errors_read_plainly() {
        let e = "http://x/v1";
        let dns = LlmError::Network {
            message: "error sending request for url (http://x/v1/chat/completions): client error (Connect): dns error: failed to lookup address information: Name or service not known".into(),
        };
        assert_eq!(
            describe(&dns, e),
            "Could not connect to http://x/v1: the host name was not found"
        );
        let auth = LlmError::Auth {
            status: 403,
            message: String::new(),
        };
        assert_eq!(describe(&auth, e), "The key was rejected (HTTP 403)");
    }
}
