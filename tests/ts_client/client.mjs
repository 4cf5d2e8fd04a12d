// Drives `deskhand serve` with the official MCP TypeScript SDK client and prints what it saw as JSON.
// Usage: node client.mjs stdio <command> [args...]   |   node client.mjs http <url> <token>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, ...rest] = process.argv.slice(2);
const cell = process.env.DESKHAND_TS_CELL;
let transport;
if (mode === "stdio") {
  const [command, ...args] = rest;
  transport = new StdioClientTransport({ command, args, env: { ...process.env }, stderr: "inherit" });
} else if (mode === "http") {
  const [url, token] = rest;
  transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
} else {
  throw new Error(`unknown mode ${mode}`);
}

const client = new Client({ name: "deskhand-ts-test", version: "0.0.0" });
await client.connect(transport);
const out = {
  serverVersion: client.getServerVersion(),
  capabilities: client.getServerCapabilities(),
  instructions: client.getInstructions(),
};
const listing = await client.listTools();
out.tools = listing.tools.map((t) => ({ name: t.name, title: t.title ?? null }));
out.platform = listing._meta?.platform ?? null;
// What reached the wire during the js call, in order: each progress value, then "result". The
// SDK runs notification handlers a microtask later but takes a response at once, so a progress
// notification read in the same chunk as the response never reaches `onprogress`.
const wire = [];
const deliver = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === "notifications/progress") wire.push(message.params.progress);
  else if (message.result?.content !== undefined) wire.push("result");
  deliver?.(message, extra);
};
const progress = [];
const result = await client.callTool({ name: "js", arguments: { code: cell, timeout_ms: 30000 } }, undefined, {
  onprogress: (p) => progress.push(p.progress),
  timeout: 60000,
});
out.cell = {
  isError: result.isError ?? false,
  texts: result.content.filter((b) => b.type === "text").map((b) => b.text),
  images: result.content.filter((b) => b.type === "image").map((b) => b.mimeType),
};
transport.onmessage = deliver;
out.progress = progress;
out.wire = wire;
out.prompts = (await client.listPrompts()).prompts.map((p) => p.name);
const resource = await client.readResource({ uri: "deskhand://guidance/linux.md" });
out.resourceStart = resource.contents[0].text.slice(0, 40);
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  out.unknownTool = null;
} catch (err) {
  out.unknownTool = { code: err.code ?? null, message: String(err.message) };
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
