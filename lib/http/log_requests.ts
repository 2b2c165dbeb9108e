/**
 * The request log: one line per answered request, for operators watching a running service.
 *
 * @module
 */
import type { Logger } from "../ports.ts";
import type { Handler } from "./create_pipeline.ts";
import { readPathname } from "./route.ts";

/**
 * Wraps a handler so that each answered request is logged once, at `info`: `Request` with the
 * method, the path (without the query, which may carry personal data), the status and the time
 * to the response's head in milliseconds (one decimal).
 *
 * @param handler The handler to wrap.
 * @param logger Where the lines go.
 * @param nowMilliseconds A monotonic clock in milliseconds. @default {performance.now}
 * @returns The same handler, logging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logRequests } from "./log_requests.ts";
 *
 * const lines: Array<Record<string, unknown> | undefined> = [];
 * const logger = { info: (_: string, fields?: Record<string, unknown>) => void lines.push(fields), warn() {}, error() {} };
 * const handler = logRequests(() => Promise.resolve(new Response("ok", { status: 201 })), logger);
 * await handler(new Request("http://localhost/api/v1/booking?x=1", { method: "POST" }));
 * assert.equal(lines[0]?.path, "/api/v1/booking");
 * assert.equal(lines[0]?.status, 201);
 * ```
 */
export function logRequests(
  handler: Handler,
  logger: Logger,
  nowMilliseconds: () => number = () => performance.now(),
): Handler {
  return async (request, info) => {
    const started = nowMilliseconds();
    const response = await handler(request, info);
    logger.info("Request", {
      method: request.method,
      path: readPathname(request.url),
      status: response.status,
      ms: Math.round((nowMilliseconds() - started) * 10) / 10,
    });
    return response;
  };
}
