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
 * shape checks already passed) is thereby paid once.
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

/** The exchanges of one connection: what its transport and its callers share. */
interface Exchanges {
  /** Delivers a message to the instance; set when the instance connects. */
  transport: Transport;
  /** Answers the exchange a response of the instance belongs to. */
  send(message: JSONRPCMessage): Promise<void>;
  serve: McpExchange;
}

/** The exchanges of a connection, around the transport the era needs. */
function createExchanges(toTransport: (exchanges: Exchanges) => Transport): Exchanges {
  const pending = new Map<number, PendingExchange>();
  let lastId = 0;
  /** The id of the request being delivered, while the instance dispatches it. */
  let dispatching: number | undefined;
  const exchanges: Exchanges = {
    transport: undefined as unknown as Transport,
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
        const answer = JSON.stringify({ ...message, id: exchange.id });
        exchange.resolve(new Response(answer, { status: 200, headers: JSON_HEADERS }));
      }
      return Promise.resolve();
    },
    serve: (message, { classification, ...extra }) =>
      new Promise((resolve) => {
        // Ids of our own: clients' ids repeat (most send 1), and the instance keys its work by id.
        const id = ++lastId;
        pending.set(id, { id: message.id, resolve });
        dispatching = id;
        try {
          exchanges.transport.onmessage?.(
            { ...message, id },
            classification ? { ...extra, classification } : extra,
          );
        } finally {
          dispatching = undefined;
        }
      }),
  };
  exchanges.transport = toTransport(exchanges);
  return exchanges;
}

/**
 * Connects an instance to a transport that serves exchange after exchange, several at a time.
 * The 2026-07-28 connection's transport is one of the SDK's `PerRequestHTTPServerTransport`
 * (whose messages it never uses), because connecting an instance to one binds the instance to the
 * revision of the transport's classification: the SDK's documented way to serve that revision.
 *
 * @param sdk The SDK's module.
 * @param server A new instance, connected to nothing; it stays connected for good.
 * @param era The era the connection serves.
 * @returns Serves a request on the connection.
 */
export async function connectExchanges(
  sdk: McpSdk,
  server: McpServer,
  era: McpEra,
): Promise<McpExchange> {
  const exchanges = createExchanges(({ send }) => {
    if (era === "legacy") {
      const transport: Transport = {
        start: () => Promise.resolve(),
        close: () => Promise.resolve(transport.onclose?.()),
        send,
      };
      return transport;
    }
    class SharedTransport extends sdk.PerRequestHTTPServerTransport {
      override start(): Promise<void> {
        return Promise.resolve();
      }
      override send(message: JSONRPCMessage): Promise<void> {
        return send(message);
      }
      override close(): Promise<void> {
        this.onclose?.();
        return Promise.resolve();
      }
    }
    return new SharedTransport({
      classification: { era: "modern", revision: MCP_MODERN_PROTOCOL_VERSION },
    });
  });
  await server.connect(exchanges.transport);
  return exchanges.serve;
}
