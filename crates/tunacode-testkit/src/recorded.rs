//! Requests as the fake provider saw them.

use std::time::Instant;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;

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
    /// The request as received: the line, the headers and the body (JSON when it parses).
    pub(crate) async fn read(req: Request<Incoming>, connection_id: u64) -> RecordedRequest {
        let received_at = Instant::now();
        let method = req.method().as_str().to_string();
        let path = req
            .uri()
            .path_and_query()
            .map_or_else(|| req.uri().path().to_string(), |p| p.as_str().to_string());
        let headers = req
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let raw = match req.into_body().collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => Bytes::new(),
        };
        RecordedRequest {
            method,
            path,
            headers,
            body: serde_json::from_slice(&raw).unwrap_or(serde_json::Value::Null),
            raw_body: String::from_utf8_lossy(&raw).into_owned(),
            received_at,
            connection_id,
        }
    }

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
