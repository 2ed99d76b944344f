//! Requests as the fake provider saw them.

use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;

/// One HTTP request received by a [`crate::FakeProvider`] (every request is recorded, including
/// ones answered with 404/405).
#[derive(Debug)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path including the query string, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers in arrival order, names lowercase (values decoded lossily as UTF-8).
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (when first read), or `Null` when it is not JSON.
    pub body: JsonBody,
    /// The body as text (lossy UTF-8).
    pub raw_body: String,
    /// When the request head was received.
    pub received_at: Instant,
    /// The TCP connection it came on; accepted connections are numbered from 1.
    pub connection_id: u64,
    /// What the fake itself reads of the body (`outline.rs`).
    pub(crate) outline: serde_json::Value,
}

/// By hand: [`JsonBody`] is deliberately not `Clone`, so `request.body.clone()` in a test still
/// gives the `Value` it reads as (through `Deref`), as it did when `body` was a `Value`.
impl Clone for RecordedRequest {
    fn clone(&self) -> Self {
        RecordedRequest {
            method: self.method.clone(),
            path: self.path.clone(),
            headers: self.headers.clone(),
            body: JsonBody {
                raw: self.body.raw.clone(),
                tree: self.body.tree.clone(),
            },
            raw_body: self.raw_body.clone(),
            received_at: self.received_at,
            connection_id: self.connection_id,
            outline: self.outline.clone(),
        }
    }
}

/// A request body as JSON, built into a tree when first read (a large body no test reads is never
/// built). Reads as a [`serde_json::Value`]: `Null` when the body is not JSON.
pub struct JsonBody {
    raw: Bytes,
    tree: OnceLock<serde_json::Value>,
}

impl JsonBody {
    /// The body `raw`, not parsed yet.
    pub(crate) fn new(raw: Bytes) -> Self {
        JsonBody {
            raw,
            tree: OnceLock::new(),
        }
    }
}

impl Deref for JsonBody {
    type Target = serde_json::Value;

    fn deref(&self) -> &serde_json::Value {
        self.tree
            .get_or_init(|| serde_json::from_slice(&self.raw).unwrap_or(serde_json::Value::Null))
    }
}

impl fmt::Debug for JsonBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The body as compact JSON text (as the tree writes it).
impl fmt::Display for JsonBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl serde::Serialize for JsonBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl PartialEq<serde_json::Value> for JsonBody {
    fn eq(&self, other: &serde_json::Value) -> bool {
        **self == *other
    }
}

impl RecordedRequest {
    /// The request as received: the line, the headers and the body (JSON when it parses). A request
    /// that is not `checked` gets the outline of its head only and no `raw_body` text.
    pub(crate) async fn read(
        req: Request<Incoming>,
        connection_id: u64,
        checked: bool,
    ) -> RecordedRequest {
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
        let (outline, raw_body) = if checked {
            let text = String::from_utf8_lossy(&raw).into_owned();
            (crate::outline::outline(&raw), text)
        } else {
            (crate::outline::head_outline(&raw), String::new())
        };
        RecordedRequest {
            method,
            path,
            headers,
            outline,
            raw_body,
            body: JsonBody::new(raw),
            received_at,
            connection_id,
        }
    }

    /// A `POST` of `body` to `path`, as the server would record it (for the renderers' tests).
    #[cfg(test)]
    pub(crate) fn post(path: &str, body: &serde_json::Value) -> RecordedRequest {
        let raw = Bytes::from(body.to_string());
        RecordedRequest {
            method: "POST".into(),
            path: path.into(),
            headers: vec![],
            outline: crate::outline::outline(&raw),
            raw_body: body.to_string(),
            body: JsonBody::new(raw),
            received_at: Instant::now(),
            connection_id: 1,
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
