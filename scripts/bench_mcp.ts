/**
 * Benchmark: next month's free slots through MCP (`POST /mcp`, `tools/call list_available_slots`)
 * against the same listing through REST (`GET /api/v1/booking/slots?month=YYYY-MM`), alternately
 * in the same run with `wrk` on loopback (see scripts/_bench_support.ts; a Lua script sends the
 * POST). The MCP call is measured in both protocol revisions the endpoint serves: 2025-11-25 (the
 * SDK client's default: no envelope, `Accept: application/json, text/event-stream`) and
 * 2026-07-28 (the per-request `_meta` envelope and its standard headers).
 *
 * The service starts as `deno task start` starts it (the same permissions, the
 * request log on), on a temporary KV file, with the read quota raised so that neither interface
 * is throttled (an MCP call counts twice against it: the POST and the tool). Target: MCP at
 * ≥ 50 % of REST's throughput.
 *
 * Usage: `deno task bench:mcp [--seconds 10] [--rounds 3] [--connections 50] [--cpu-prof DIR]`
 * (`--cpu-prof` writes the service's V8 CPU profile into DIR when it stops).
 *
 * @module
 */
import { compare, printRatio, readFlag, startProcess } from "./_bench_support.ts";
import { DEFAULT_SCHEDULE } from "../build/schedule.generated.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);
const profileFolder = readFlag("--cpu-prof");

const LEGACY_REVISION = "2025-11-25";
const MODERN_REVISION = "2026-07-28";

/** One way of calling the tool over HTTP: the request's headers and body. */
interface McpCall {
  headers: Record<string, string>;
  body: string;
}

/** `tools/call list_available_slots` as a 2025-era client sends it after `initialize`. */
function buildLegacyCall(month: string): McpCall {
  return {
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": LEGACY_REVISION,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_available_slots", arguments: { month } },
    }),
  };
}

/** The same call in the 2026-07-28 revision: no handshake, the client's facts in each request. */
function buildModernCall(month: string): McpCall {
  return {
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN_REVISION,
      "MCP-Method": "tools/call",
      "MCP-Name": "list_available_slots",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "list_available_slots",
        arguments: { month },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_REVISION,
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  };
}

/** A wrk script that POSTs the call (Lua long brackets: the JSON needs no escaping). */
function toWrkScript(call: McpCall): string {
  const headers = Object.entries(call.headers)
    .map(([name, value]) => `wrk.headers["${name}"] = "${value}"`);
  return ['wrk.method = "POST"', ...headers, `wrk.body = [==[${call.body}]==]`, ""].join("\n");
}

/**
 * Sends the call once and checks that the tool listed slots; returns the answer's media type.
 *
 * @throws {Error} When the answer is not a successful listing.
 */
async function checkCall(url: string, call: McpCall): Promise<string> {
  const response = await fetch(url, { method: "POST", headers: call.headers, body: call.body });
  const type = response.headers.get("Content-Type") ?? "";
  const text = await response.text();
  // An SSE answer carries the JSON-RPC message on its `data:` line.
  const json = type.startsWith("text/event-stream") ? /^data: (.*)$/m.exec(text)?.[1] ?? "" : text;
  const slots = (JSON.parse(json || "{}") as {
    result?: { isError?: boolean; structuredContent?: { slots?: unknown } };
  }).result;
  if (response.status !== 200 || slots?.isError || !slots?.structuredContent?.slots) {
    throw new Error(`POST /mcp answered ${response.status}: ${text.slice(0, 500)}`);
  }
  return type;
}

const month = Temporal.Now.plainDateISO(DEFAULT_SCHEDULE.timeZone).toPlainYearMonth()
  .add({ months: 1 }).toString();
const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const calls = { legacy: buildLegacyCall(month), modern: buildModernCall(month) };
const scripts = { legacy: `${folder}/mcp_legacy.lua`, modern: `${folder}/mcp_modern.lua` };
await Deno.writeTextFile(scripts.legacy, toWrkScript(calls.legacy));
await Deno.writeTextFile(scripts.modern, toWrkScript(calls.modern));

const profile = profileFolder ? ["--cpu-prof", `--cpu-prof-dir=${profileFolder}`] : [];
// As `deno task start` runs it; STUDIO_LOG is left unset, so the request log is on.
const service = await startProcess([
  "run",
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-sys",
  ...profile,
  "main.ts",
], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/bench.kv`,
  STUDIO_RATE_LIMIT_READ: "1000000000",
});
try {
  const restPath = `/api/v1/booking/slots?month=${month}`;
  const rest = await fetch(service.origin + restPath);
  if (rest.status !== 200) throw new Error(`${restPath} answered ${rest.status}`);
  const restBytes = (await rest.arrayBuffer()).byteLength;
  const legacyType = await checkCall(`${service.origin}/mcp`, calls.legacy);
  const modernType = await checkCall(`${service.origin}/mcp`, calls.modern);
  console.log(
    `tools/call list_available_slots {month: ${month}} vs GET ${restPath} (${restBytes} bytes), wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}, request log on`,
  );
  console.log(
    `  MCP answers: ${LEGACY_REVISION} in ${legacyType}, ${MODERN_REVISION} in ${modernType}`,
  );
  const [legacy, modern, slots] = await compare([
    {
      label: `POST /mcp (${LEGACY_REVISION})`,
      origin: service.origin,
      path: "/mcp",
      script: scripts.legacy,
      pid: service.pid,
    },
    {
      label: `POST /mcp (${MODERN_REVISION})`,
      origin: service.origin,
      path: "/mcp",
      script: scripts.modern,
      pid: service.pid,
    },
    { label: "GET …/booking/slots", origin: service.origin, path: restPath, pid: service.pid },
  ], { seconds, rounds, connections });
  for (
    const [revision, measured] of [[LEGACY_REVISION, legacy], [MODERN_REVISION, modern]] as const
  ) {
    console.log(
      `MCP ${revision} / REST: ${
        (measured.requestsPerSecond / slots.requestsPerSecond).toFixed(3)
      }×`,
    );
    printRatio(measured, slots, 50);
  }
} finally {
  await service.stop();
  await Deno.remove(folder, { recursive: true });
}
