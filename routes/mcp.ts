/**
 * `POST /mcp`: the MCP endpoint (Model Context Protocol, Streamable HTTP), stateless — every POST
 * is served by a fresh server from `buildMcpServer`, through the official SDK's
 * `createMcpHandler`, which serves the 2025 revisions over its `WebStandardStreamableHTTPServerTransport`
 * with `sessionIdGenerator: undefined` and the 2026-07-28 revision per request. GET and DELETE
 * (session streams and their end, which a stateless server has not) answer 405 with `Allow: POST`.
 *
 * Checks, in order: the pipeline's Origin rule (every POST route of the table), the request
 * counted once against the `read` quota (an exchange, like any GET: `initialize`, `tools/list` and
 * the read-only tools cost no write), then the SDK's `Host` check against DNS rebinding, and
 * inside each tool call the quotas of the matching API operation (`read`; `write`;
 * `write` and `booking`).
 *
 * The SDK (about 80 ms to load) and the server's tools are imported on the first request to `/mcp`,
 * so a handler that never serves MCP never pays for them, and start-up does not (issue 15).
 *
 * @module
 */
import { MAX_BODY_BYTES } from "../lib/contract/contract.ts";
import { discardBody } from "../lib/http/read_body.ts";
import type { RouteHandlers } from "../lib/http/route.ts";
import { loadOnce } from "../lib/load_once.ts";
import type { SiteServices } from "../lib/services.ts";
import type { McpSdk } from "./_mcp_server.ts";

/** The handler of the endpoint, once the SDK is loaded. */
interface McpEndpoint {
  fetch: (request: Request, clientKey: string) => Promise<Response>;
}

/**
 * A JSON-RPC error answer, as the SDK writes its own transport-level refusals.
 *
 * @param status The HTTP status.
 * @param message What went wrong and what to do.
 * @param headers Extra fields, e.g. `Allow` or `Retry-After`.
 */
export function buildJsonRpcError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }),
    { status, headers: { "Content-Type": "application/json", ...headers } },
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
    Allow: allow || "POST",
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

async function createEndpoint(services: SiteServices): Promise<McpEndpoint> {
  const [sdk, { buildMcpServer }] = await Promise.all([
    import("@modelcontextprotocol/server") as Promise<McpSdk>,
    import("./_mcp_server.ts"),
  ]);
  const allowedHostnames = toAllowedHostnames(sdk, services);
  const handler = sdk.createMcpHandler(
    (context) =>
      buildMcpServer(sdk, services, {
        clientKey: context.authInfo?.clientId ?? "unknown",
        userAgent: context.requestInfo?.headers.get("User-Agent") ?? undefined,
      }),
    {
      maxRequestBodySize: MAX_BODY_BYTES.createContactInquiry,
      onerror: (error) => services.logger.info("MCP request refused", { error: error.message }),
    },
  );
  return {
    fetch(request, clientKey) {
      // A server always sets Host; a Request built in-process may not, and its URL names the host.
      const host = request.headers.get("Host") ?? new URL(request.url).host;
      const checked = sdk.validateHostHeader(host, allowedHostnames);
      if (!checked.ok) {
        discardBody(request);
        return Promise.resolve(buildJsonRpcError(403, checked.message));
      }
      // The client's key rides in authInfo, the SDK's one pass-through from the caller to the
      // server factory (no token is involved: the endpoint is public).
      return handler.fetch(request, { authInfo: { token: "", clientId: clientKey, scopes: [] } });
    },
  };
}

/**
 * The handlers of the MCP endpoint (its route, `POST /mcp`, is an entry of `routes/mod.ts`).
 *
 * @param services The site's services.
 * @returns The handlers: the endpoint, and its JSON-RPC 429.
 */
export function createMcpEndpoint(services: SiteServices): RouteHandlers {
  const endpoint = loadOnce(() => createEndpoint(services));
  return {
    answerRateLimited(request, _context, retryAfterSeconds) {
      discardBody(request);
      return buildJsonRpcError(
        429,
        `Too many requests from this client: retry in ${retryAfterSeconds} seconds`,
        { "Retry-After": String(retryAfterSeconds) },
      );
    },
    async handle(request, context) {
      return await (await endpoint()).fetch(request, context.clientKey);
    },
  };
}
