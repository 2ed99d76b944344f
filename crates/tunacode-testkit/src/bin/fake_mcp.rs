//! A small MCP server for tests, on rmcp's server side, over stdio. By default it speaks only the
//! 2026-07-28 era (`server/discover`; `initialize` is refused), so the client's new lifecycle is
//! tested; `--legacy` makes it an `initialize`-era server instead.
//!
//! Flags: `--legacy`, `--delay-ms N` (wait before serving), `--crash` (print to stderr and exit 3).
//! `FAKE_MCP_LOG=<file>` appends one line per event: `discover`, `initialize`, `call <tool>`,
//! `cancelled <tool>`, `pid <pid>` at start.
//!
//! Tools: `echo {message}` → `echo: <message>`; `fail` → an `isError` result; `slow` → waits until
//! cancelled; `peek` (annotated read-only) → `peeked`; `grow` → adds the tool `extra` and sends
//! `notifications/tools/list_changed`; `picture` → a text and a 1×1 PNG.

#![allow(clippy::print_stderr)]

use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    InitializeRequestParams, InitializeResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::json;

/// A 1×1 PNG.
const TINY_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[derive(Clone)]
struct Fake {
    legacy: bool,
    grown: Arc<AtomicBool>,
}

fn log(line: &str) {
    let Some(path) = std::env::var_os("FAKE_MCP_LOG") else {
        return;
    };
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = writeln!(file, "{line}");
    }
}

fn tool(name: &str, description: &str, schema: serde_json::Value, read_only: bool) -> Tool {
    let mut value = json!({"name": name, "description": description, "inputSchema": schema});
    if read_only {
        value["annotations"] = json!({"readOnlyHint": true});
    }
    serde_json::from_value(value).expect("a valid tool")
}

fn text(text: String) -> Vec<ContentBlock> {
    vec![serde_json::from_value(json!({"type": "text", "text": text})).expect("a text block")]
}

impl Fake {
    fn tools(&self) -> Vec<Tool> {
        let empty = json!({"type": "object", "properties": {}});
        let mut tools = vec![
            tool(
                "echo",
                "Echoes the message back.",
                json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                       "properties": {"message": {"type": "string"}}, "required": ["message"]}),
                false,
            ),
            tool("fail", "Always fails.", empty.clone(), false),
            tool("slow", "Runs until cancelled.", empty.clone(), false),
            tool(
                "peek",
                "Reads nothing, annotated read-only.",
                empty.clone(),
                true,
            ),
            tool("grow", "Adds the tool `extra`.", empty.clone(), false),
            tool("picture", "Returns a tiny PNG image.", empty.clone(), false),
        ];
        if self.grown.load(Ordering::SeqCst) {
            tools.push(tool("extra", "Appeared after `grow`.", empty, false));
        }
        tools
    }

    async fn run(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let name = request.name.to_string();
        log(&format!("call {name}"));
        let args = request.arguments.unwrap_or_default();
        match name.as_str() {
            "echo" => {
                let message = args.get("message").and_then(|m| m.as_str()).unwrap_or("");
                CallToolResult::success(text(format!("echo: {message}")))
            }
            "fail" => CallToolResult::error(text("the fake tool failed on purpose".into())),
            "slow" => {
                context.ct.cancelled().await;
                log("cancelled slow");
                CallToolResult::success(text("cancelled".into()))
            }
            "peek" => CallToolResult::success(text("peeked".into())),
            "grow" => {
                self.grown.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(text("grown".into()))
            }
            "extra" => CallToolResult::success(text("extra ran".into())),
            "picture" => {
                let mut blocks = text("a tiny picture".into());
                blocks.push(
                    serde_json::from_value(json!({"type": "image", "mimeType": "image/png",
                                                  "data": TINY_PNG}))
                    .expect("an image block"),
                );
                CallToolResult::success(blocks)
            }
            other => CallToolResult::error(text(format!("no tool {other}"))),
        }
    }
}

impl ServerHandler for Fake {
    fn get_info(&self) -> InitializeResult {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        InitializeResult::new(capabilities)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.legacy {
            Cow::Owned(vec![ProtocolVersion::V_2025_11_25])
        } else {
            Cow::Owned(vec![ProtocolVersion::V_2026_07_28])
        }
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        log("initialize");
        if !self.legacy {
            return Err(ErrorData::method_not_found::<
                rmcp::model::InitializeResultMethod,
            >());
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        log("discover");
        if self.legacy {
            return Err(ErrorData::method_not_found::<
                rmcp::model::DiscoverRequestMethod,
            >());
        }
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(serde_json::from_value(json!({"tools": self.tools()})).expect("a tool list"))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self.run(request, context).await.into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    log(&format!("pid {}", std::process::id()));
    if args.iter().any(|a| a == "--crash") {
        eprintln!("fake-mcp: cannot read its configuration");
        std::process::exit(3);
    }
    if let Some(ms) = args
        .iter()
        .position(|a| a == "--delay-ms")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse::<u64>().ok())
    {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    let fake = Fake {
        legacy: args.iter().any(|a| a == "--legacy"),
        grown: Arc::new(AtomicBool::new(false)),
    };
    match fake.serve(rmcp::transport::stdio()).await {
        Ok(service) => {
            let _ = service.waiting().await;
        }
        Err(e) => {
            eprintln!("fake-mcp: {e}");
            std::process::exit(1);
        }
    }
}
