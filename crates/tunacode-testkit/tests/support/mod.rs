//! A minimal raw HTTP/1.1 client over a tokio `TcpStream`, so the tests see exactly what is on the
//! wire (chunk boundaries, missing terminating chunks).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// A parsed response.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// HTTP chunks (empty for Content-Length bodies).
    pub chunks: Vec<String>,
    /// The whole (de-chunked) body.
    pub body: String,
    /// Whether the body ended properly (terminating 0-chunk or full Content-Length).
    pub complete: bool,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The `data:` payloads of the SSE body.
    pub fn sse_data(&self) -> Vec<String> {
        sse_data(&self.body)
    }

    /// The `data:` payloads parsed as JSON (skipping `[DONE]`).
    pub fn sse_json(&self) -> Vec<serde_json::Value> {
        self.sse_data()
            .iter()
            .filter(|d| d.as_str() != "[DONE]")
            .map(|d| serde_json::from_str(d).expect("SSE data is JSON"))
            .collect()
    }
}

pub fn sse_data(body: &str) -> Vec<String> {
    body.split("\n\n")
        .filter(|event| !event.is_empty())
        .filter_map(|event| {
            event
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .map(str::to_string)
        })
        .collect()
}

/// One client connection.
pub struct RawConn {
    reader: BufReader<TcpStream>,
}

impl RawConn {
    pub async fn connect(addr: SocketAddr) -> RawConn {
        let stream = TcpStream::connect(addr).await.expect("connect");
        RawConn {
            reader: BufReader::new(stream),
        }
    }

    pub async fn send(&mut self, method: &str, path: &str, body: &str, close: bool) {
        let connection = if close { "close" } else { "keep-alive" };
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             Authorization: Bearer sk-test\r\nContent-Length: {}\r\nConnection: {connection}\r\n\r\n{body}",
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(request.as_bytes()).await.expect("write");
        stream.flush().await.expect("flush");
    }

    pub async fn read_head(&mut self) -> (u16, Vec<(String, String)>) {
        let mut line = String::new();
        self.reader.read_line(&mut line).await.expect("status line");
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status code");
        let mut headers = Vec::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line).await.expect("header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (k, v) = l.split_once(':').expect("header colon");
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
        (status, headers)
    }

    /// The next HTTP chunk: `Ok(Some)`, `Ok(None)` for the terminating 0-chunk, `Err` on EOF.
    pub async fn read_chunk(&mut self) -> std::io::Result<Option<String>> {
        let mut line = String::new();
        if self.reader.read_line(&mut line).await? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        let size = usize::from_str_radix(line.trim(), 16).expect("chunk size");
        let mut data = vec![0; size + 2];
        self.reader.read_exact(&mut data).await?;
        data.truncate(size);
        if size == 0 {
            return Ok(None);
        }
        Ok(Some(String::from_utf8(data).expect("UTF-8 chunk")))
    }

    pub async fn read_response(&mut self) -> RawResponse {
        let (status, headers) = self.read_head().await;
        let find = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let mut chunks = Vec::new();
        let mut body = String::new();
        let complete;
        if let Some(len) = find("content-length") {
            let mut data = vec![0; len.parse().expect("content-length")];
            complete = self.reader.read_exact(&mut data).await.is_ok();
            body = String::from_utf8(data).expect("UTF-8 body");
        } else if find("transfer-encoding").as_deref() == Some("chunked") {
            loop {
                match self.read_chunk().await {
                    Ok(Some(chunk)) => {
                        body.push_str(&chunk);
                        chunks.push(chunk);
                    }
                    Ok(None) => break complete = true,
                    Err(_) => break complete = false,
                }
            }
        } else {
            complete = self.reader.read_to_string(&mut body).await.is_ok();
        }
        RawResponse {
            status,
            headers,
            chunks,
            body,
            complete,
        }
    }
}

/// One request on a fresh connection with `Connection: close`.
pub async fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> RawResponse {
    let mut conn = RawConn::connect(addr).await;
    conn.send(method, path, body, true).await;
    conn.read_response().await
}

/// A streaming chat request body.
pub fn chat_body(model: &str) -> String {
    serde_json::json!({
        "model": model,
        "stream": true,
        "messages": [{"role": "user", "content": "hi"}],
    })
    .to_string()
}

pub const CHAT: &str = "/v1/chat/completions";
