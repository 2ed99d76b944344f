//! `web_fetch`: GETs a URL and returns its text, HTML converted to markdown (`htmd`). Capped in size
//! and time; redirects are followed by hand, each hop checked; special-purpose addresses (loopback,
//! private, link-local, documentation, multicast, … `ranges.rs`) and this machine's own addresses are
//! refused unless the config allows private hosts, and cloud metadata addresses always, the check
//! made on the address actually connected to (`guard.rs`). Approved per domain, like a command.

mod guard;
mod ranges;

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::args::parse;
use crate::schema::schema_for;
use crate::tool::{Tool, ToolContext, ToolKind, ToolOutput};
use crate::tool_error::ToolError;
use guard::{GuardedResolver, local_addrs, refused};

const NAME: &str = "web_fetch";
/// The most of a body read.
const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// The most of the text returned to the model.
const MAX_TEXT_CHARS: usize = 100_000;
/// Redirects followed.
const MAX_REDIRECTS: usize = 5;

/// Fetches a web page.
#[derive(Debug, Clone, Copy, Default)]
pub struct WebFetch {
    /// Whether loopback, private, link-local and other special-purpose addresses, and this
    /// machine's own, may be fetched from.
    pub allow_private_hosts: bool,
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    url: String,
}

/// The host a URL names (what approval "for the session" covers).
pub fn url_host(url: &str) -> Option<String> {
    url::Url::parse(url).ok()?.host_str().map(str::to_string)
}

impl WebFetch {
    fn client(&self, local: &Arc<HashSet<IpAddr>>) -> Result<reqwest::Client, ToolError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .dns_resolver(Arc::new(GuardedResolver {
                allow_private: self.allow_private_hosts,
                local: local.clone(),
            }))
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(30))
            .user_agent(concat!("tunacode/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ToolError::Fatal(format!("web_fetch: {e}")))
    }

    /// Refuses a URL whose scheme or literal address may not be fetched (names are checked when
    /// they resolve); `local` is this machine's addresses.
    fn check(&self, url: &url::Url, local: &HashSet<IpAddr>) -> Result<(), ToolError> {
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ToolError::Retry(format!(
                "web_fetch fetches http and https URLs only, not {url}"
            )));
        }
        let literal = match url.host() {
            Some(url::Host::Ipv4(v4)) => Some(std::net::IpAddr::V4(v4)),
            Some(url::Host::Ipv6(v6)) => Some(std::net::IpAddr::V6(v6)),
            Some(url::Host::Domain(_)) => None,
            None => return Err(ToolError::Retry(format!("{url} names no host"))),
        };
        if let Some(why) = literal.and_then(|ip| refused(ip, self.allow_private_hosts, local)) {
            return Err(ToolError::Retry(format!(
                "refused: {url} is {why}; web_fetch does not reach it (settings.web_fetch.allow_private_hosts allows private ones)"
            )));
        }
        Ok(())
    }

    /// This machine's addresses, read off the async threads (none needed when private hosts are
    /// allowed).
    async fn local_addrs(&self) -> Result<Arc<HashSet<IpAddr>>, ToolError> {
        if self.allow_private_hosts {
            return Ok(Arc::default());
        }
        let found = tokio::task::spawn_blocking(local_addrs)
            .await
            .map_err(|e| ToolError::Fatal(format!("web_fetch: {e}")))?;
        Ok(Arc::new(found))
    }

    /// Follows redirects (each hop checked) to a final response.
    async fn get(&self, start: url::Url) -> Result<(url::Url, reqwest::Response), ToolError> {
        let local = self.local_addrs().await?;
        let client = self.client(&local)?;
        let mut url = start;
        for _ in 0..=MAX_REDIRECTS {
            self.check(&url, &local)?;
            let response = client.get(url.clone()).send().await.map_err(|e| {
                let mut message = format!("fetching {url} failed: {e}");
                let mut source = std::error::Error::source(&e);
                while let Some(inner) = source {
                    message.push_str(&format!(": {inner}"));
                    source = inner.source();
                }
                ToolError::Retry(message)
            })?;
            if !response.status().is_redirection() {
                return Ok((url, response));
            }
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| ToolError::Retry(format!("{url} redirects without a Location")))?;
            url = url
                .join(location)
                .map_err(|e| ToolError::Retry(format!("{url} redirects to a bad URL: {e}")))?;
        }
        Err(ToolError::Retry(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }
}

/// Reads at most [`MAX_BODY_BYTES`] of a body; whether it was cut.
async fn read_capped(response: reqwest::Response) -> Result<(Vec<u8>, bool), ToolError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ToolError::Retry(format!("reading the page failed: {e}")))?;
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BODY_BYTES {
            body.truncate(MAX_BODY_BYTES);
            return Ok((body, true));
        }
    }
    Ok((body, false))
}

/// The body as text for the model: HTML as markdown, other text as it is.
fn as_text(content_type: &str, body: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(body);
    if content_type.contains("html")
        || (content_type.is_empty() && text.trim_start().starts_with('<'))
    {
        return htmd::convert(&text).map_err(|e| format!("the page could not be converted: {e}"));
    }
    let textual = content_type.starts_with("text/")
        || content_type.contains("json")
        || content_type.contains("xml")
        || content_type.is_empty();
    if textual {
        Ok(text.into_owned())
    } else {
        Err(format!(
            "the page is {content_type} ({} bytes), not text",
            body.len()
        ))
    }
}

#[async_trait]
impl Tool for WebFetch {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        "Fetch a web page (http/https GET) as text, HTML as markdown, long pages cut: the docs, issues \
         or references the user points to."
    }

    fn parameters(&self) -> Value {
        static SCHEMA: LazyLock<Value> = LazyLock::new(schema_for::<Args>);
        SCHEMA.clone()
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Execute
    }

    async fn call(
        &self,
        args: Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let args: Args = parse(NAME, &args)?;
        let url = url::Url::parse(args.url.trim())
            .map_err(|e| ToolError::Retry(format!("`{}` is not a URL: {e}", args.url)))?;
        let fetch = async {
            let (url, response) = self.get(url).await?;
            let status = response.status();
            let content_type = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_ascii_lowercase();
            let (body, cut) = read_capped(response).await?;
            let mut text = as_text(&content_type, &body).map_err(ToolError::Retry)?;
            let mut notes = String::new();
            if cut {
                notes.push_str(&format!(
                    "\n[the page was longer than {} MiB; cut]",
                    MAX_BODY_BYTES >> 20
                ));
            }
            if text.chars().count() > MAX_TEXT_CHARS {
                text = text.chars().take(MAX_TEXT_CHARS).collect();
                notes.push_str(&format!("\n[cut at {MAX_TEXT_CHARS} characters]"));
            }
            Ok(ToolOutput::text(format!(
                "URL: {url}\nStatus: {status}\n\n{}{notes}",
                text.trim()
            )))
        };
        tokio::select! {
            _ = ctx.cancel.cancelled() => Err(ToolError::Cancelled),
            out = fetch => out,
        }
    }

    async fn preview(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Option<String>, ToolError> {
        let args: Args = parse(NAME, args)?;
        Ok(Some(format!("GET {}", args.url)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_addresses_in_urls_are_checked_like_resolved_ones() {
        let fetch = WebFetch::default();
        let own: IpAddr = "93.184.216.34".parse().expect("an address");
        let local: HashSet<IpAddr> = [own].into();
        for url in [
            "http://127.0.0.1:8080/",
            "http://[::1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:c0a8:101::1]/",
            "http://192.0.2.10/",
            "http://198.18.0.1/",
            "http://[2001:db8::1]/",
            "http://[fe80::1]/",
            "http://0.0.0.0/",
            "http://93.184.216.34/",
        ] {
            let url = url::Url::parse(url).expect("a URL");
            let err = fetch.check(&url, &local).expect_err("refused");
            assert!(err.to_string().contains("refused"), "{url}: {err}");
        }
        let public = url::Url::parse("http://8.8.8.8/").expect("a URL");
        assert!(fetch.check(&public, &local).is_ok());
        let allowed = WebFetch {
            allow_private_hosts: true,
        };
        let loopback = url::Url::parse("http://127.0.0.1/").expect("a URL");
        assert!(allowed.check(&loopback, &local).is_ok());
    }
}
