/**
 * `POST /mcp`: the MCP endpoint (Model Context Protocol, Streamable HTTP), stateless. GET and
 * DELETE (session streams and their end, which a stateless server has not) answer 405 with
 * `Allow: POST`.
 *
 * Every refusal is a JSON-RPC error, the pipeline's too (a foreign `Origin`, a quota spent, a
 * failure). Checks, in order: the pipeline's Origin rule (every POST route of the table), the
 * request counted once against the `read` quota (an exchange, like any GET: `initialize`,
 * `tools/list` and the read-only tools cost no write), then the SDK's `Host` check against DNS
 * rebinding, and inside each tool call the quotas of the matching API operation (`read`;
 * `write`; `write` and `booking`).
 *
 * The body is read once as the API reads its bodies (within 64 KiB, within 10 s and given up at
 * once when the server stops, UTF-8 only: another charset or invalid bytes are refused), and
 * routed as the SDK routes it (`isLegacyRequest`, whose answer the body's shape gives beforehand
 * for the usual calls: see `toLegByShape`). Each revision's usual request goes to one connection
 * per revision shared by all (`_mcp_exchanges.ts`): in the 2025 revisions a JSON-RPC request other
 * than `initialize`, in the 2026-07-28 revision a `tools/call` whose standard headers match its
 * body. Any other body goes to the SDK's entries: the 2026-07-28 revision to its
 * `createMcpHandler` (its answers are JSON unless a tool streams, and ours do not), the 2025
 * revisions (a handshake, a notification, a batch) to a stateless
 * `WebStandardStreamableHTTPServerTransport` with `enableJsonResponse`, so that a client accepting
 * JSON gets one JSON body instead of an event stream. Every leg takes its server instances from
 * `createMcpServers`, which builds the tools, resources and prompt once and reuses each instance;
 * who is calling reaches the tools with each request, as its `authInfo`.
 *
 * The SDK and the server's tools are imported on the first request to `/mcp`, so a handler that
 * never serves MCP never pays for them, and start-up does not.
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import { MAX_BODY_BYTES } from "../lib/contract/contract.ts";
import { MCP_MODERN_PROTOCOL_VERSION } from "../lib/mcp/build_server_card.ts";
import {
  BODY_TIMEOUT_MILLISECONDS,
  BodyError,
  type BodyProblem,
  type BodyReader,
  createBodyReader,
  discardBody,
  isUtf8,
  readMediaType,
} from "../lib/http/read_body.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import { loadOnce } from "../lib/load_once.ts";
import type { SiteServices } from "../lib/services.ts";
import type { McpSdk, McpServers } from "./_mcp_server.ts";
import type { AuthInfo, JSONRPCRequest, MessageClassification } from "@modelcontextprotocol/server";

/** The largest body the endpoint reads, in bytes (an inquiry's arguments are the largest). */
const MCP_MAX_BODY_BYTES = MAX_BODY_BYTES.createContactInquiry;

/** JSON-RPC's code for a body that does not parse. */
const PARSE_ERROR_CODE = -32700;

/** The longest a body may take to arrive, in seconds: the API's. */
const BODY_TIMEOUT_SECONDS = BODY_TIMEOUT_MILLISECONDS / 1000;

/** The handler of the endpoint, once the SDK is loaded. */
interface McpEndpoint {
  fetch: (request: Request, clientKey: string) => Promise<Response>;
}

/** What the SDK's legs take with a request: who is calling and the body, already parsed. */
interface McpRequestOptions {
  authInfo: AuthInfo;
  parsedBody?: unknown;
}

/** A leg of the endpoint: answers one request. */
type McpLeg = (request: Request, options: McpRequestOptions) => Promise<Response>;

/**
 * A JSON-RPC error answer, as the SDK writes its own transport-level refusals.
 *
 * @param status The HTTP status.
 * @param message What went wrong and what to do.
 * @param options `code`: the JSON-RPC error code (@default -32000); `headers`: extra fields,
 *   e.g. `Allow` or `Retry-After`.
 */
export function buildJsonRpcError(
  status: number,
  message: string,
  options: { code?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: options.code ?? -32000, message }, id: null }),
    { status, headers: { "Content-Type": "application/json", ...options.headers } },
  );
}

/**
 * Answers a request to `/mcp` with a method other than POST: 405 with `Allow: POST` (the server
 * is stateless: it offers no GET stream and has no session to DELETE).
 *
 * @param request The request; its body, if any, is discarded.
 * @param allow The methods the path accepts, from the route table.
 * @returns A JSON-RPC error with status 405.
 */
export function answerMcpMethodNotAllowed(request: Request, allow: string): Response {
  discardBody(request);
  return buildJsonRpcError(405, `Method ${request.method} is not allowed: use POST`, {
    headers: { Allow: allow || "POST" },
  });
}

/**
 * The hostnames `Host` may name (DNS-rebinding protection): the public origin's, the allowed
 * origins', and the loopback names of local runs.
 */
function toAllowedHostnames(sdk: McpSdk, services: SiteServices): string[] {
  const names = new Set<string>(sdk.localhostAllowedHostnames());
  for (const origin of [services.baseUrl, ...services.allowedOrigins]) {
    try {
      names.add(new URL(origin).hostname);
    } catch { /* not a URL: nothing to allow */ }
  }
  return [...names];
}

/** The most `Host` values whose check is kept: a site's few names, and a bound for the others. */
const MAX_CHECKED_HOSTS = 32;

/**
 * Creates the `Host` check (DNS-rebinding protection): the SDK's, kept per value, as a server
 * sees the same few values over and over and the SDK parses each as a URL.
 */
function createHostCheck(
  sdk: McpSdk,
  allowedHostnames: string[],
): (host: string) => ReturnType<McpSdk["validateHostHeader"]> {
  const checked = new Map<string, ReturnType<McpSdk["validateHostHeader"]>>();
  return (host) => {
    let result = checked.get(host);
    if (!result) {
      result = sdk.validateHostHeader(host, allowedHostnames);
      if (checked.size >= MAX_CHECKED_HOSTS) checked.clear();
      checked.set(host, result);
    }
    return result;
  };
}

/** A strict decoder: bytes that are not UTF-8 are refused, as the API refuses them. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** What the endpoint answers to a body it could not read, by the reader's problem. */
function refuseBody(problem: BodyProblem): Response {
  switch (problem) {
    case "too-large":
      return buildJsonRpcError(
        413,
        `Payload Too Large: Request body must not exceed ${MCP_MAX_BODY_BYTES} bytes`,
      );
    case "too-slow":
      // The API's verdict on the same request (400, its body "did not arrive in time").
      return buildJsonRpcError(
        400,
        `Bad Request: the request body did not arrive within ${BODY_TIMEOUT_SECONDS} seconds`,
      );
    case "aborted":
      return buildJsonRpcError(503, "Service Unavailable: the server is stopping; retry", {
        headers: { "Retry-After": "1", Connection: "close" },
      });
    default:
      return buildJsonRpcError(400, "Parse error: the request body could not be read", {
        code: PARSE_ERROR_CODE,
      });
  }
}

/**
 * Reads the body of a JSON POST once, as the API reads its bodies: within the limit (a declared
 * length over it is refused before reading), within the API's time (a body still arriving then is
 * refused, and at once when the server stops: see the endpoint's reader), and as strict UTF-8.
 *
 * @returns The text, or the refusal of a body that is too large, too slow, cut off or not UTF-8.
 */
async function readMcpText(request: Request, readBody: BodyReader): Promise<string | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, { maxBytes: MCP_MAX_BODY_BYTES });
  } catch (error) {
    return refuseBody(error instanceof BodyError ? error.problem : "unreadable");
  }
  try {
    return UTF8.decode(bytes);
  } catch {
    return buildJsonRpcError(400, "Parse error: the request body is not valid UTF-8", {
      code: PARSE_ERROR_CODE,
    });
  }
}

/**
 * Reads a JSON POST's body once, for both the routing and the leg that answers. A body that is
 * not JSON goes on as text in a copy of the request, for the 2025 transport to refuse as it
 * always has (406 without the accepted types, else a parse error).
 *
 * @returns The parsed body with the (read) request, the copy, or the refusal of the body.
 */
async function readMcpBody(
  request: Request,
  readBody: BodyReader,
): Promise<{ request: Request; parsedBody?: unknown } | Response> {
  const text = await readMcpText(request, readBody);
  if (text instanceof Response) return text;
  try {
    if (text.length) return { request, parsedBody: JSON.parse(text) };
  } catch { /* not JSON: the transport refuses the copy below */ }
  return {
    request: new Request(request.url, { method: "POST", headers: request.headers, body: text }),
  };
}

/** Whether a value is an object other than an array, as JSON-RPC messages and their params are. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Which leg serves a POST's body where its shape alone decides it, as the SDK's `isLegacyRequest`
 * would decide it; `undefined` for any other body, which the endpoint then hands to that
 * predicate. The predicate's classification tries the body as a result and as an error response
 * before it tries a request, and a failed zod parse costs more than the rest of the exchange's
 * checks (what it looked at stays reachable until the next full collection): a body with neither a
 * `result` nor an `error` member fails both, so they are skipped here.
 *
 * - A body whose `_meta` claims a protocol revision is never legacy (the predicate's documented
 *   rule): the 2026-07-28 handler serves it or answers its refusal. An `initialize` is left to the
 *   predicate, which weighs whether its claim is valid.
 * - A JSON-RPC request without the claim, under no `MCP-Protocol-Version` or a 2025 revision, is
 *   legacy.
 *
 * @param sdk The SDK's module.
 * @param request The request, for its `MCP-Protocol-Version`.
 * @param body The parsed body.
 * @returns The leg, or `undefined` when the shape does not decide it.
 */
export function toLegByShape(
  sdk: McpSdk,
  request: Request,
  body: unknown,
): "legacy" | "modern" | undefined {
  if (!isPlainObject(body) || "result" in body || "error" in body) return undefined;
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  if (isPlainObject(meta) && sdk.PROTOCOL_VERSION_META_KEY in meta) {
    return typeof body.method === "string" && body.method !== "initialize" ? "modern" : undefined;
  }
  const revision = request.headers.get("MCP-Protocol-Version");
  if (revision !== null && !sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(revision)) return undefined;
  return sdk.isJSONRPCRequest(body) ? "legacy" : undefined;
}

/**
 * Whether a body is or holds an `initialize` request: the one message after which an instance
 * keeps something of its client (its identity and the revision it asked for), so that instance
 * serves no other exchange.
 */
function isHandshake(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) =>
    typeof message === "object" && message !== null &&
    (message as { method?: unknown }).method === "initialize"
  );
}

/**
 * The 2025 leg: the SDK's stateless idiom (a transport without session ids, connected to an
 * instance for one exchange and closed after it), with `enableJsonResponse` so the answer is
 * one JSON body rather than an event stream. The transport keeps its own checks (`Accept` names
 * both JSON and event streams, `Content-Type` is JSON, the body is a JSON-RPC message).
 */
function createLegacyLeg(
  sdk: McpSdk,
  servers: McpServers,
  onerror: (error: Error) => void,
): McpLeg {
  return async (request, options) => {
    const server = servers.take({ era: "legacy", reuse: !isHandshake(options.parsedBody) });
    const transport = new sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MCP_MAX_BODY_BYTES,
    });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request, options);
    } catch (error) {
      onerror(error instanceof Error ? error : new Error(String(error)));
      return buildJsonRpcError(500, "Internal server error", { code: -32603 });
    } finally {
      // Closing the instance closes its transport, which lets the instance go back among the idle
      // ones: nothing may touch it after that, as another exchange may already have it.
      await server.close().catch(() => {});
    }
  };
}

/** The MCP server's modules: the SDK and our server on it, loaded by the first request. */
interface McpModules {
  sdk: McpSdk;
  server: typeof import("./_mcp_server.ts");
  exchanges: typeof import("./_mcp_exchanges.ts");
}

/**
 * Whether a 2025-era request goes to the shared connection (see `_mcp_exchanges.ts`): a single
 * JSON-RPC request (as `toLegByShape` found it) other than `initialize`, from a client that
 * accepts what the stateless transport requires it to accept (else that transport answers 406).
 */
function isSharedExchange(request: Request, body: unknown): body is JSONRPCRequest {
  const accept = request.headers.get("Accept");
  return accept !== null && accept.includes("application/json") &&
    accept.includes("text/event-stream") && !isHandshake(body);
}

/** A tool's name that its `MCP-Name` header carries as it is (no encoding applies to it). */
const PLAIN_NAME = /^[\w.-]{1,128}$/;

/**
 * The classification of a 2026-07-28 request that goes to the shared connection: a JSON-RPC
 * `tools/call` whose envelope claims that revision and whose standard headers name the revision,
 * the method and the tool exactly as its body does (what the SDK's entry requires of them). The
 * envelope itself is checked by the instance, which refuses a bad one before any handler runs (and
 * the SDK's entry then answers it). Anything else goes to the SDK's entry, which serves or refuses
 * it.
 *
 * @returns The classification, or `undefined` for the SDK's entry.
 */
function toSharedModernCall(
  sdk: McpSdk,
  request: Request,
  body: unknown,
): MessageClassification | undefined {
  if (!isPlainObject(body) || body.method !== "tools/call" || !isPlainObject(body.params)) {
    return undefined;
  }
  const { name, _meta: meta } = body.params;
  const { headers } = request;
  const revision = MCP_MODERN_PROTOCOL_VERSION;
  if (
    typeof name !== "string" || !PLAIN_NAME.test(name) || !isPlainObject(meta) ||
    meta[sdk.PROTOCOL_VERSION_META_KEY] !== revision ||
    headers.get("MCP-Protocol-Version") !== revision ||
    headers.get("MCP-Method") !== "tools/call" || headers.get("MCP-Name") !== name
  ) return undefined;
  return sdk.isJSONRPCRequest(body) ? { era: "modern", revision } : undefined;
}

async function createEndpoint(
  services: SiteServices,
  { sdk, server: { createMcpServers, toAuthInfo }, exchanges }: McpModules,
): Promise<McpEndpoint> {
  const checkHost = createHostCheck(sdk, toAllowedHostnames(sdk, services));
  const servers = createMcpServers(sdk, services);
  const { knownJson } = servers;
  const shared = {
    legacy: await exchanges.connectExchanges(servers.build("legacy"), {
      sdk,
      era: "legacy",
      knownJson,
    }),
    modern: await exchanges.connectExchanges(servers.build("modern"), {
      sdk,
      era: "modern",
      knownJson,
    }),
  };
  // The API's time for a body, and the server's stop, on one timer and one listener for all.
  const readBody = createBodyReader({
    timeoutMilliseconds: BODY_TIMEOUT_MILLISECONDS,
    signal: services.stopping,
  });
  const onerror = (error: Error) =>
    services.logger.info("MCP request refused", { error: error.message });
  const modern = sdk.createMcpHandler(({ era }) => servers.take({ era }), {
    legacy: "reject",
    maxRequestBodySize: MCP_MAX_BODY_BYTES,
    onerror,
  });
  const legacy = createLegacyLeg(sdk, servers, onerror);
  return {
    async fetch(request, clientKey) {
      // A server always sets Host; a Request built in-process may not, and its URL names the host.
      const host = request.headers.get("Host") ?? new URL(request.url).host;
      const checked = checkHost(host);
      if (!checked.ok) {
        discardBody(request);
        return buildJsonRpcError(403, checked.message);
      }
      // The SDK's answer to a body that is not JSON (415), before anything is read.
      if (!sdk.isJsonContentType(request.headers.get("Content-Type"))) return modern.fetch(request);
      const { charset } = readMediaType(request);
      if (!isUtf8(charset)) {
        discardBody(request);
        return buildJsonRpcError(
          415,
          `Unsupported Media Type: Content-Type must be application/json in UTF-8, not charset ${
            JSON.stringify(charset?.slice(0, 40))
          }`,
        );
      }
      const body = await readMcpBody(request, readBody);
      if (body instanceof Response) return body;
      const options = { authInfo: toAuthInfo(clientKey), parsedBody: body.parsedBody };
      if (body.parsedBody === undefined) return legacy(body.request, options);
      const byShape = toLegByShape(sdk, body.request, body.parsedBody);
      const info = { request: body.request, authInfo: options.authInfo };
      if (byShape === "legacy" && isSharedExchange(body.request, body.parsedBody)) {
        const answer = await shared.legacy(body.parsedBody, info);
        if (answer) return answer;
      }
      const classification = byShape === "modern"
        ? toSharedModernCall(sdk, body.request, body.parsedBody)
        : undefined;
      if (classification) {
        const message = body.parsedBody as JSONRPCRequest;
        const answer = await shared.modern(message, { ...info, classification });
        if (answer) return answer;
      }
      const leg = byShape ??
        (await sdk.isLegacyRequest(body.request, body.parsedBody) ? "legacy" : "modern");
      return leg === "legacy" ? legacy(body.request, options) : modern.fetch(body.request, options);
    },
  };
}

/**
 * The pipeline's refusal of a request (a foreign `Origin`: 403) or a failure of the endpoint, as
 * a JSON-RPC error with the same status: an `ApiError`'s message and hint, a fixed message for
 * anything else (the pipeline has logged it).
 *
 * @param error What the pipeline caught (the pipeline discards the request's body).
 * @returns The JSON-RPC error.
 */
function answerMcpRefused(error: unknown): Response {
  if (!(error instanceof ApiError)) {
    return buildJsonRpcError(500, "Internal server error", { code: -32603 });
  }
  return buildJsonRpcError(error.status, `${error.message}: ${error.hint}`, {
    headers: error.headers,
  });
}

/**
 * The handlers of the MCP endpoint (its route, `POST /mcp`, is an entry of `routes/mod.ts`).
 *
 * @param services The site's services.
 * @returns The handlers: the endpoint, and its JSON-RPC refusals (429, the pipeline's others).
 */
export function createMcpEndpoint(services: SiteServices): RouteHandlers {
  const endpoint = loadOnce(async () => {
    const [sdk, server, exchanges] = await Promise.all([
      import("@modelcontextprotocol/server") as Promise<McpSdk>,
      import("./_mcp_server.ts"),
      import("./_mcp_exchanges.ts"),
    ]);
    return await createEndpoint(services, { sdk, server, exchanges });
  });
  return {
    answerRefused: (_request, _context, error) => answerMcpRefused(error),
    answerRateLimited(request, _context, retryAfterSeconds) {
      discardBody(request);
      return buildJsonRpcError(
        429,
        `Too many requests from this client: retry in ${retryAfterSeconds} seconds`,
        { headers: { "Retry-After": String(retryAfterSeconds) } },
      );
    },
    async handle(request, context) {
      return await (await endpoint()).fetch(request, context.clientKey);
    },
  };
}
