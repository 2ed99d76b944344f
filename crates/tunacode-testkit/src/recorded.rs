//! Requests as the fake provider saw them.

use std::time::Instant;

/// One HTTP request received by a [`crate::FakeProvider`] (every request is recorded, including
/// ones answered with 404/405).
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path including the query string, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers in arrival order, names lowercase (values decoded lossily as UTF-8).
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON, or `Null` when it is not JSON.
    pub body: serde_json::Value,
    /// The body as text (lossy UTF-8).
    pub raw_body: String,
    /// When the request head was received.
    pub received_at: Instant,
    /// The TCP connection it came on; accepted connections are numbered from 1.
    pub connection_id: u64,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path without its query string.
    pub fn path_without_query(&self) -> &str {
        self.path.split('?').next().unwrap_or(&self.path)
    }
}
