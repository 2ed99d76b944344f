//! The egress proxy for sandboxed commands: without the network, commands can reach the hosts the user
//! allowed (`settings.sandbox.allowed_hosts`, e.g. `*.crates.io`, `registry.npmjs.org`) and nothing
//! else. It listens on a loopback port, which is the only place the sandbox lets TCP connect to; it
//! takes `CONNECT host:port` (HTTPS) and plain HTTP requests in absolute form, checks the host against
//! the patterns, and relays the bytes. Each plain HTTP request gets `Connection: close`, so a kept-alive
//! connection can never carry a second request to another host.
//!
//! Hand-written: it is one request head and a byte relay; the proxy crates are full HTTP stacks with
//! far more than this needs.

use std::net::SocketAddr;

use globset::{Glob, GlobSet, GlobSetBuilder};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// The longest request head read.
const MAX_HEAD: usize = 16 * 1024;

/// A running proxy; stops when dropped.
#[derive(Debug)]
pub struct EgressProxy {
    port: u16,
    task: JoinHandle<()>,
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Which hosts pass.
#[derive(Debug, Clone)]
struct Allowed(GlobSet);

impl Allowed {
    fn new(patterns: &[String]) -> Result<Self, String> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let glob = Glob::new(&pattern.to_ascii_lowercase())
                .map_err(|e| format!("settings.sandbox.allowed_hosts: `{pattern}`: {e}"))?;
            builder.add(glob);
        }
        builder.build().map(Allowed).map_err(|e| e.to_string())
    }

    fn permits(&self, host: &str) -> bool {
        self.0
            .is_match(host.trim_matches(['[', ']']).to_ascii_lowercase())
    }
}

impl EgressProxy {
    /// Starts a proxy on a free loopback port that lets through `allowed_hosts`.
    pub async fn start(allowed_hosts: &[String]) -> Result<EgressProxy, String> {
        let allowed = Allowed::new(allowed_hosts)?;
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("the egress proxy cannot listen: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let allowed = allowed.clone();
                tokio::spawn(async move {
                    if let Err(e) = serve(client, &allowed).await {
                        tracing::debug!(target: "egress", "proxy connection: {e}");
                    }
                });
            }
        });
        Ok(EgressProxy { port, task })
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The proxy's URL, for `HTTP_PROXY` and `HTTPS_PROXY`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// One client connection: its request head decides where it may go.
async fn serve(mut client: TcpStream, allowed: &Allowed) -> std::io::Result<()> {
    let (head, rest) = read_head(&mut client).await?;
    let Some((method, target, version)) = request_line(&head) else {
        return refuse(&mut client, "400 Bad Request", "not an HTTP proxy request").await;
    };
    let Some((host, port, path)) = destination(&method, &target) else {
        return refuse(&mut client, "400 Bad Request", "no host in the request").await;
    };
    if !allowed.permits(&host) {
        let why = format!(
            "{host} is not among the hosts commands may reach (settings.sandbox.allowed_hosts)"
        );
        return refuse(&mut client, "403 Forbidden", &why).await;
    }
    let mut upstream = match TcpStream::connect((host.as_str(), port)).await {
        Ok(stream) => stream,
        Err(e) => return refuse(&mut client, "502 Bad Gateway", &e.to_string()).await,
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        client
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await?;
    } else {
        upstream
            .write_all(&origin_form(&head, &method, &path, &version))
            .await?;
    }
    upstream.write_all(&rest).await?;
    tokio::io::copy_bidirectional(&mut client, &mut upstream).await?;
    Ok(())
}

/// Reads up to the end of the request head; the head, and any bytes after it.
async fn read_head(client: &mut TcpStream) -> std::io::Result<(String, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = client.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::other(
                "the client closed before its request",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok((String::from_utf8_lossy(&buf).into_owned(), rest));
        }
        if buf.len() > MAX_HEAD {
            return Err(std::io::Error::other("request head too long"));
        }
    }
}

fn request_line(head: &str) -> Option<(String, String, String)> {
    let line = head.lines().next()?;
    let mut parts = line.split_whitespace();
    let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
    Some((method.to_string(), target.to_string(), version.to_string()))
}

/// Where a request goes: host, port, and the path for plain HTTP.
fn destination(method: &str, target: &str) -> Option<(String, u16, String)> {
    if method.eq_ignore_ascii_case("CONNECT") {
        let addr: Option<SocketAddr> = target.parse().ok();
        if let Some(addr) = addr {
            return Some((addr.ip().to_string(), addr.port(), String::new()));
        }
        let (host, port) = target.rsplit_once(':')?;
        return Some((host.to_string(), port.parse().ok()?, String::new()));
    }
    let rest = target.strip_prefix("http://")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].to_string()),
        None => (rest, "/".to_string()),
    };
    let (host, port) = match authority.rsplit_once(':') {
        Some((host, port)) if !host.ends_with(']') || authority.starts_with('[') => {
            (host.to_string(), port.parse().ok()?)
        }
        _ => (authority.to_string(), 80),
    };
    Some((host, port, path))
}

/// The request head rewritten for the origin: path-only target, no proxy headers, `Connection:
/// close`.
fn origin_form(head: &str, method: &str, path: &str, version: &str) -> Vec<u8> {
    let mut out = format!("{method} {path} {version}\r\n");
    for line in head.lines().skip(1).filter(|l| !l.is_empty()) {
        let name = line
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "proxy-connection" | "connection" | "proxy-authorization"
        ) {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    out.into_bytes()
}

async fn refuse(client: &mut TcpStream, status: &str, why: &str) -> std::io::Result<()> {
    let body = format!("tunacode sandbox: {why}\n");
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(response.as_bytes()).await
}

#[cfg(test)]
#[path = "egress_tests.rs"]
mod tests;
