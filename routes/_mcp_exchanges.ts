/**
 * One connection that serves many 2025-era exchanges at a time: an instance of the MCP server
 * connected once to a transport of our own, which hands each JSON-RPC request to the instance
 * under an id of its own and answers the HTTP request with the instance's JSON-RPC response.
 *
 * Internal to routes/: `routes/mcp.ts` sends here the requests of the common shape that the
 * SDK's stateless transport would serve alike (one JSON-RPC request, not `initialize`, with the
 * accepted media types and revision), and everything else to that transport. The SDK's protocol
 * layer serves concurrent requests on one connection by their ids; an instance never initialized
 * keeps nothing of any client (the tools read the caller from each request's context), which is
 * what the stateless transport gives an instance for one exchange. What the per-exchange
 * transport costs on top (a transport built, connected and closed, the message parsed again by
 * schemas that the shape checks already passed, an error object made at each close) is thereby
 * paid once.
 *
 * @module
 */
import type {
  AuthInfo,
  JSONRPCMessage,
  JSONRPCRequest,
  McpServer,
  Transport,
} from "@modelcontextprotocol/server";

/** What a request to the connection carries besides its message. */
export interface McpExchangeInfo {
  /** The HTTP request, which the tools read the `User-Agent` from. */
  request: Request;
  /** The caller, as the endpoint names it (its rate-limit key). */
  authInfo: AuthInfo;
}

/**
 * Serves one JSON-RPC request on the shared connection.
 *
 * @param message A JSON-RPC request other than `initialize`, as the client sent it.
 * @param info The HTTP request and the caller.
 * @returns The JSON-RPC response, with the client's id, as one JSON body (status 200, as the
 *   SDK's stateless transport answers a JSON-RPC error too).
 */
export type McpExchange = (message: JSONRPCRequest, info: McpExchangeInfo) => Promise<Response>;

/** An exchange in flight: the id the client gave it, and its answer. */
interface PendingExchange {
  id: JSONRPCRequest["id"];
  resolve: (response: Response) => void;
}

const JSON_HEADERS = { "Content-Type": "application/json" } as const;

/** Whether a message the instance sends is a response (a result or an error) to a request. */
function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: number } {
  return ("result" in message || "error" in message) && typeof message.id === "number";
}

/**
 * Connects an instance to a transport that serves exchange after exchange, several at a time.
 *
 * @param server A new instance, connected to nothing; it stays connected for good.
 * @returns Serves a request on the connection.
 */
export async function connectExchanges(server: McpServer): Promise<McpExchange> {
  const pending = new Map<number, PendingExchange>();
  let lastId = 0;
  const transport: Transport = {
    start: () => Promise.resolve(),
    close() {
      transport.onclose?.();
      return Promise.resolve();
    },
    send(message) {
      // Anything but a response (a notification, a request to the client) has no stream here to
      // go on, as in the stateless transport's JSON answers: it is dropped.
      if (!isResponse(message)) return Promise.resolve();
      const exchange = pending.get(message.id);
      if (exchange) {
        pending.delete(message.id);
        const answer = JSON.stringify({ ...message, id: exchange.id });
        exchange.resolve(new Response(answer, { status: 200, headers: JSON_HEADERS }));
      }
      return Promise.resolve();
    },
  };
  await server.connect(transport);
  return (message, info) =>
    new Promise((resolve) => {
      // Ids of our own: clients' ids repeat (most send 1), and the instance keys its work by id.
      const id = ++lastId;
      pending.set(id, { id: message.id, resolve });
      transport.onmessage?.({ ...message, id }, info);
    });
}
