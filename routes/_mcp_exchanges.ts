/**
 * One connection per protocol era that serves many exchanges at a time: an instance of the MCP
 * server connected once to a transport of our own, which hands each JSON-RPC request to the
 * instance under an id of its own and answers the HTTP request with the instance's JSON-RPC
 * response.
 *
 * Internal to routes/: `routes/mcp.ts` sends here the requests of the common shapes that the SDK's
 * own entries would serve alike — in the 2025 revisions one JSON-RPC request other than
 * `initialize`, with the accepted media types and revision; in the 2026-07-28 revision a
 * `tools/call` whose envelope and standard headers the SDK's classifier accepts and that match
 * exactly — and everything else to those entries. The SDK's protocol layer serves concurrent
 * requests on one connection by their ids; an instance keeps nothing of any client (the tools
 * read the caller from each request's context, and an instance of the shared connection never
 * sees an `initialize`), which is what the SDK's stateless entries give an instance for one
 * exchange. What those entries cost on top (a transport built, connected and closed for each
 * exchange, with an error object made at each close; the message parsed again by schemas that the
 * shape checks already passed) is thereby paid once. A tool's answer is serialised with the JSON
 * its tools already know of its parts (`lib/mcp/create_known_json.ts`): the same bytes as the
 * SDK's entries write, without walking a month's listing again.
 *
 * A request the instance refuses before any handler runs (an unknown method, an envelope its era
 * refuses) is given back unanswered, for the SDK's entry to answer it with its own HTTP status.
 *
 * @module
 */
import type {
  AuthInfo,
  JSONRPCMessage,
  JSONRPCRequest,
  McpServer,
  MessageClassification,
  Transport,
} from "@modelcontextprotocol/server";
import { MCP_MODERN_PROTOCOL_VERSION } from "../lib/mcp/build_server_card.ts";
import type { KnownJson } from "../lib/mcp/create_known_json.ts";
import type { McpEra, McpSdk } from "./_mcp_server.ts";

/** What a request to a shared connection carries besides its message. */
export interface McpExchangeInfo {
  /** The HTTP request, which the tools read the `User-Agent` from. */
  request: Request;
  /** The caller, as the endpoint names it (its rate-limit key). */
  authInfo: AuthInfo;
  /** The 2026-07-28 revision's classification of the message, as the SDK's classifier gave it. */
  classification?: MessageClassification;
}

/**
 * Serves one JSON-RPC request on a shared connection.
 *
 * @param message A JSON-RPC request of the connection's era (never `initialize`).
 * @param info The HTTP request, the caller and, in the 2026-07-28 revision, the classification.
 * @returns The JSON-RPC response, with the client's id, as one JSON body (status 200, as the
 *   SDK's entries answer a handler's JSON-RPC error too); `undefined` when the instance refused
 *   the request before any handler ran, for the SDK's entry to answer.
 */
export type McpExchange = (
  message: JSONRPCRequest,
  info: McpExchangeInfo,
) => Promise<Response | undefined>;

/** An exchange in flight: the id the client gave it, and its answer. */
interface PendingExchange {
  id: JSONRPCRequest["id"];
  resolve: (response: Response | undefined) => void;
}

const JSON_HEADERS = { "Content-Type": "application/json" } as const;

/** Whether a message the instance sends is a response (a result or an error) to a request. */
function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: number } {
  return ("result" in message || "error" in message) && typeof message.id === "number";
}

/** The exchanges in flight on one connection. */
interface Exchanges {
  /** Answers the exchange that a message of the instance responds to (the transport's `send`). */
  send(message: JSONRPCMessage): Promise<void>;
  /** Serves requests through the transport connected to the instance. */
  serveOn(transport: Transport): McpExchange;
}

/**
 * Whether a response is a tool's result, the one kind of answer that carries values whose JSON is
 * known (see `KnownJson`): every other answer is serialised as it is, without the look-ups.
 */
function isToolResult(message: JSONRPCMessage): boolean {
  if (!("result" in message)) return false;
  const { result } = message;
  return typeof result === "object" && result !== null && "structuredContent" in result;
}

/**
 * Creates the bookkeeping of a connection's exchanges: ids of its own, and their answers, which it
 * serialises with the JSON already known of their parts.
 */
function createExchanges(knownJson: KnownJson): Exchanges {
  const pending = new Map<number, PendingExchange>();
  let lastId = 0;
  /** The id of the request being delivered, while the instance dispatches it. */
  let dispatching: number | undefined;
  return {
    send(message) {
      // Anything but a response (a notification, a request to the client) has no stream here to
      // go on, as in the SDK's JSON answers: it is dropped.
      if (!isResponse(message)) return Promise.resolve();
      const exchange = pending.get(message.id);
      if (!exchange) return Promise.resolve();
      pending.delete(message.id);
      if ("error" in message && message.id === dispatching) {
        exchange.resolve(undefined);
      } else {
        const answer = isToolResult(message)
          ? knownJson.stringify({ ...message, id: exchange.id })
          : JSON.stringify({ ...message, id: exchange.id });
        exchange.resolve(new Response(answer, { status: 200, headers: JSON_HEADERS }));
      }
      return Promise.resolve();
    },
    serveOn: (transport) => (message, { classification, ...extra }) =>
      new Promise((resolve) => {
        // Ids of our own: clients' ids repeat (most send 1), and the instance keys its work by id.
        const id = ++lastId;
        pending.set(id, { id: message.id, resolve });
        dispatching = id;
        try {
          transport.onmessage?.(
            { ...message, id },
            classification ? { ...extra, classification } : extra,
          );
        } finally {
          dispatching = undefined;
        }
      }),
  };
}

/** The 2025 connection's transport: it starts and closes at once, and sends to the exchanges. */
function createLegacyTransport(exchanges: Exchanges): Transport {
  const transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(transport.onclose?.()),
    send: (message) => exchanges.send(message),
  };
  return transport;
}

/**
 * The 2026-07-28 connection's transport: one of the SDK's `PerRequestHTTPServerTransport` (whose
 * own exchange it never uses), because connecting an instance to one binds the instance to the
 * revision of the transport's classification, the SDK's documented way to serve that revision.
 */
function createModernTransport(sdk: McpSdk, exchanges: Exchanges): Transport {
  class SharedTransport extends sdk.PerRequestHTTPServerTransport {
    override start(): Promise<void> {
      return Promise.resolve();
    }
    override send(message: JSONRPCMessage): Promise<void> {
      return exchanges.send(message);
    }
    override close(): Promise<void> {
      this.onclose?.();
      return Promise.resolve();
    }
  }
  return new SharedTransport({
    classification: { era: "modern", revision: MCP_MODERN_PROTOCOL_VERSION },
  });
}

/**
 * Connects an instance to a transport that serves exchange after exchange, several at a time.
 *
 * @param server A new instance, connected to nothing; it stays connected for good.
 * @param options `sdk`: the SDK's module; `era`: the era the connection serves; `knownJson`: the
 *   JSON of values the instance's tools answer again and again.
 * @returns Serves a request on the connection.
 */
export async function connectExchanges(
  server: McpServer,
  { sdk, era, knownJson }: { sdk: McpSdk; era: McpEra; knownJson: KnownJson },
): Promise<McpExchange> {
  const exchanges = createExchanges(knownJson);
  const transport = era === "legacy"
    ? createLegacyTransport(exchanges)
    : createModernTransport(sdk, exchanges);
  await server.connect(transport);
  return exchanges.serveOn(transport);
}
