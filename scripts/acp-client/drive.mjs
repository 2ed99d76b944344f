// End-to-end driver for `tunacode acp`: an Agent Client Protocol (v1, JSON-RPC over stdio) client built on
// the reference library @agentclientprotocol/sdk, which it loads from $TUNACODE_ACP_SDK (a node_modules
// folder; `eval "$(scripts/setup-acp-client.sh)"` installs it and sets that and $TUNACODE_ACP_CLIENT).
//
//   node drive.mjs SCRIPT.json AGENT_COMMAND [AGENT_ARGS...]
//
// Spawns the agent (stdin/stdout piped, stderr inherited), runs the steps of SCRIPT.json (a JSON array) in
// order, and writes one JSON object per line on stdout for everything that happens. Steps (`step` in the
// output is the step's 0-based index in the array):
//   {"do":"initialize","protocolVersion":1,"fs":true,"buffers":{"/abs/path":"text"}}
//       fs (default false) is offered as clientCapabilities.fs.readTextFile/writeTextFile; no terminal.
//       buffers seeds the client's unsaved editor buffers, which fs/read_text_file prefers to the disk.
//   {"do":"new_session","cwd":"/abs","mcpServers":[]}         the new session becomes the current one
//   {"do":"load_session","sessionId":"…","cwd":"/abs","mcpServers":[]}   so does the loaded one
//   {"do":"list_sessions","cwd":"/abs"}                        session/list
//   {"do":"set_mode","modeId":"…"}                             on the current session
//   {"do":"set_config_option","configId":"…","value":"…"}     on the current session
//   {"do":"prompt","prompt":"text" | [ContentBlock…],
//    "permissions":["allow_once","allow_always","reject_once",…],
//    "cancelAfter":{"update":"agent_message_chunk","count":1}}
//       Each permission request during the prompt takes the next kind off `permissions` and picks the
//       option of that kind; none left or no such option: an error event and the first reject option.
//       cancelAfter sends session/cancel once, after `count` updates of that sessionUpdate kind.
//   {"do":"expect_error","method":"session/prompt","params":{…}}  any request, params sent unchecked (the
//       SDK turns a -32002 answer to session/close or session/delete into an empty result)
// fs/read_text_file honours line/limit and answers -32002 for a missing file; terminal/* is not offered.
// Output events:
//   {"event":"response","step":N,"method":M,"result":…}     {"event":"error","step":N,"method":M,"code":…,"message":…}
//   {"event":"error_response","step":N,"method":M,"code":…,"message":…}   (expect_error failed as hoped)
//   {"event":"update","sessionId":…,"update":…}  (as received, in wire order)   {"event":"cancel_sent"}
//   {"event":"permission","request":…,"chosen":optionId|null}   {"event":"read_text_file","params":…}
//   {"event":"write_text_file","params":…} (kept in the buffers only, never written to disk)
//   {"event":"notification","method":…,"params":…} (any other)  {"event":"error","message":…} (protocol trouble)
//   {"event":"exit","code":…,"signal":…} last, after the agent's stdin is closed; or {"event":"fatal","message":…}.
// Exit status: 0 when the script ran (whatever the agent answered), 1 on a fatal error.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const log = (event) => process.stdout.write(JSON.stringify(event) + "\n");
function finish(status) {
  process.stdout.write("", () => process.exit(status));
}

async function loadSdk() {
  const modules = process.env.TUNACODE_ACP_SDK;
  if (!modules) {
    throw new Error("TUNACODE_ACP_SDK is not set: run `eval \"$(scripts/setup-acp-client.sh)\"` first");
  }
  const dir = join(modules, "@agentclientprotocol", "sdk");
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  let entry = pkg.exports?.["."] ?? pkg.exports ?? pkg.main ?? "index.js";
  while (entry && typeof entry === "object") entry = entry.import ?? entry.default ?? entry.require;
  return { sdk: await import(pathToFileURL(join(dir, entry)).href), version: pkg.version };
}

async function main() {
  const [scriptPath, command, ...args] = process.argv.slice(2);
  if (!scriptPath || !command) throw new Error("usage: node drive.mjs SCRIPT.json AGENT_COMMAND [AGENT_ARGS...]");
  const steps = JSON.parse(readFileSync(scriptPath, "utf8"));
  if (!Array.isArray(steps)) throw new Error(`${scriptPath}: the script must be a JSON array of steps`);
  const { sdk } = await loadSdk();
  const { methods, RequestError } = sdk;

  const buffers = new Map(); // path → text: the "unsaved editor buffers"
  let sessionId = null; // the current session
  let prompting = null; // state of the running prompt step: { permissions, cancelAfter, seen, cancelled }

  const agent = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => agent.on("exit", (code, signal) => resolve({ code, signal })));
  await new Promise((resolve, reject) => { agent.once("spawn", resolve); agent.once("error", reject); });
  agent.stdin.on("error", () => {}); // a dead agent shows up as failed requests and its exit status

  // The SDK reports a notification it failed to validate (then drops it) on console.error.
  const consoleError = console.error;
  console.error = (what, detail, ...rest) => {
    if (what === "Error handling notification") log({ event: "error", ...detail, message: `SDK rejected notification: ${detail?.message}` });
    else consoleError(what, detail, ...rest);
  };

  // Every message to the agent is one write of one line. The SDK answers a line from the agent that is not
  // a JSON-RPC message (a log line on stdout, say) with an error response whose id is null.
  const decoder = new TextDecoder();
  const toAgent = new TransformStream({
    transform(bytes, controller) {
      const message = JSON.parse(decoder.decode(bytes));
      if (message.id === null && message.error) log({ event: "error", message: `agent sent an invalid line: ${message.error.message}` });
      controller.enqueue(bytes);
    },
  });
  toAgent.readable.pipeTo(Writable.toWeb(agent.stdin)).catch(() => {});
  const stream = sdk.ndJsonStream(toAgent.writable, Readable.toWeb(agent.stdout));
  // Incoming messages are seen here in wire order, before the SDK dispatches them.
  const incoming = new TransformStream({
    transform(message, controller) {
      if (message.method === methods.client.session.update && !("id" in message)) onUpdate(message.params ?? {});
      else if ("method" in message && !("id" in message)) log({ event: "notification", method: message.method, params: message.params });
      controller.enqueue(message);
    },
  });

  const app = sdk.client({ name: "tunacode-e2e" })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      const kind = prompting?.permissions.shift();
      let option = kind && params.options.find((o) => o.kind === kind);
      if (!option) {
        log({ event: "error", message: "unexpected permission request" });
        option = params.options.find((o) => o.kind.startsWith("reject"));
      }
      log({ event: "permission", request: params, chosen: option?.optionId ?? null });
      return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
    })
    .onRequest(methods.client.fs.readTextFile, async ({ params }) => {
      log({ event: "read_text_file", params });
      let text = buffers.get(params.path);
      if (text === undefined) {
        try {
          text = await readFile(params.path, "utf8");
        } catch (e) {
          if (e.code === "ENOENT") throw RequestError.resourceNotFound(params.path);
          throw e;
        }
      }
      if (params.line != null || params.limit != null) {
        const start = Math.max((params.line ?? 1) - 1, 0);
        const lines = text.split("\n");
        text = lines.slice(start, params.limit != null ? start + params.limit : undefined).join("\n");
      }
      return { content: text };
    })
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      log({ event: "write_text_file", params });
      buffers.set(params.path, params.content);
      return {};
    })
    .onRequest("*", ({ method }) => {
      log({ event: "error", message: `unexpected request ${method}` });
      throw RequestError.methodNotFound(method);
    });
  const connection = app.connect({ readable: stream.readable.pipeThrough(incoming), writable: stream.writable });
  const peer = connection.agent;

  function onUpdate(params) {
    log({ event: "update", sessionId: params.sessionId, update: params.update });
    const p = prompting;
    if (!p?.cancelAfter || p.cancelled || params.update?.sessionUpdate !== p.cancelAfter.update) return;
    if (++p.seen >= (p.cancelAfter.count ?? 1)) {
      p.cancelled = true;
      peer.notify(methods.agent.session.cancel, { sessionId: p.sessionId })
        .then(() => log({ event: "cancel_sent" }), (e) => log({ event: "error", message: `session/cancel: ${e.message}` }));
    }
  }

  async function call(step, method, params, onResult) {
    try {
      const result = await peer.request(method, params);
      log({ event: "response", step, method, result });
      onResult?.(result);
    } catch (e) {
      log({ event: "error", step, method, code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) });
    }
  }

  for (const [i, s] of steps.entries()) {
    switch (s.do) {
      case "initialize":
        for (const [path, text] of Object.entries(s.buffers ?? {})) buffers.set(path, text);
        await call(i, methods.agent.initialize, {
          protocolVersion: s.protocolVersion ?? sdk.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: !!s.fs, writeTextFile: !!s.fs }, terminal: false },
          clientInfo: { name: "tunacode-e2e", version: "1" },
        });
        break;
      case "new_session":
        await call(i, methods.agent.session.new, { cwd: s.cwd, mcpServers: s.mcpServers ?? [] }, (r) => { sessionId = r.sessionId; });
        break;
      case "load_session":
        sessionId = s.sessionId;
        await call(i, methods.agent.session.load, { sessionId: s.sessionId, cwd: s.cwd, mcpServers: s.mcpServers ?? [] });
        break;
      case "fork_session":
        // The stable method table does not list `session/fork` (unstable in the spec).
        await call(i, "session/fork", { sessionId: s.sessionId ?? sessionId, cwd: s.cwd, mcpServers: [] }, (r) => { sessionId = r.sessionId; });
        break;
      case "list_sessions":
        await call(i, methods.agent.session.list, { ...(s.cwd && { cwd: s.cwd }), ...(s.cursor && { cursor: s.cursor }) });
        break;
      case "set_mode":
        await call(i, methods.agent.session.setMode, { sessionId, modeId: s.modeId });
        break;
      case "set_config_option":
        await call(i, methods.agent.session.setConfigOption, { sessionId, configId: s.configId, value: s.value });
        break;
      case "prompt": {
        const prompt = typeof s.prompt === "string" ? [{ type: "text", text: s.prompt }] : s.prompt;
        prompting = { sessionId, permissions: [...(s.permissions ?? [])], cancelAfter: s.cancelAfter, seen: 0, cancelled: false };
        await call(i, methods.agent.session.prompt, { sessionId, prompt });
        prompting = null;
        break;
      }
      case "expect_error":
        try {
          const result = await peer.request(s.method, s.params);
          log({ event: "response", step: i, method: s.method, result });
        } catch (e) {
          log({ event: "error_response", step: i, method: s.method, code: e.code, message: e.message });
        }
        break;
      default:
        throw new Error(`step ${i}: unknown step ${JSON.stringify(s.do)}`);
    }
  }

  agent.stdin.end();
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(resolve, 10_000, null); });
  let status = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  if (!status) {
    log({ event: "error", message: "agent did not exit" });
    agent.kill("SIGKILL");
    status = await exited;
  }
  connection.close();
  log({ event: "exit", code: status.code, signal: status.signal });
}

main().then(() => finish(0), (e) => {
  log({ event: "fatal", message: e?.message ?? String(e) });
  finish(1);
});
