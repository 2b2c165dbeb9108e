/**
 * The request log: one line per answered request, for operators watching a running service.
 *
 * @module
 */
import type { Handler, ResponsePromise } from "./create_pipeline.ts";
import { readPathname } from "./route.ts";
import { createLogTime } from "../create_json_logger.ts";

/** Options of {@linkcode logRequests}. */
export interface LogRequestsOptions {
  /**
   * Where each line goes (without its `\n`), e.g. a `LogWriter`'s `write`. `false` means the log
   * has ended (a stopping process wrote its last line and is about to exit): the line is refused,
   * and the request's answer is withheld, so that no request is answered that the log does not
   * show.
   */
  write(line: string): boolean | void;
  /** The time of each line. @default {createLogTime()} */
  time?: () => string;
  /** A monotonic clock in milliseconds. @default {performance.now} */
  nowMilliseconds?: () => number;
}

/** What JSON must escape in a string: `"`, `\`, control characters and lone surrogates. */
// deno-lint-ignore no-control-regex -- control characters are what it looks for
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/**
 * A path as a JSON string. Servers hand over the request target as the client sent it (Deno's
 * `request.url` keeps a raw `"` or `\`), but it seldom needs escaping, and `JSON.stringify`
 * costs more than the test.
 */
function toJsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/**
 * What a request gets once the log has ended: no answer. The process is about to exit, which
 * closes the connection; the response's body is released.
 */
function withhold(response: Response): ResponsePromise {
  void response.body?.cancel().catch(() => {});
  return new Promise<Response>(() => {});
}

/**
 * Wraps a handler so that each answered request is logged once, at `info`: one JSON line
 * `{"time","level":"info","message":"Request","method","path","status","ms"}` with the path
 * without the query (which may carry personal data) and the time to the response's head in
 * milliseconds (one decimal). The line is built as one string, with no object in between: the
 * log runs on every request. It is written before the response is handed to the server; once
 * `write` refuses lines (the log has ended), answers are withheld instead.
 *
 * @param handler The handler to wrap.
 * @param options Where the lines go, and the clocks.
 * @returns The same handler, logging.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { logRequests } from "./log_requests.ts";
 *
 * const lines: string[] = [];
 * const handler = logRequests(() => Promise.resolve(new Response("ok", { status: 201 })), {
 *   write: (line) => void lines.push(line),
 * });
 * await handler(new Request("http://localhost/api/v1/booking?x=1", { method: "POST" }));
 * const { message, method, path, status } = JSON.parse(lines[0]);
 * assert.deepEqual({ message, method, path, status }, {
 *   message: "Request",
 *   method: "POST",
 *   path: "/api/v1/booking",
 *   status: 201,
 * });
 * ```
 */
export function logRequests(handler: Handler, options: LogRequestsOptions): Handler {
  const { write, time = createLogTime(), nowMilliseconds = () => performance.now() } = options;
  // The last URL logged and its path as JSON: consecutive requests often ask for one URL (a
  // health probe, a poll), whose path is then not cut out and checked again.
  let lastUrl = "";
  let lastPath = "";
  /** Writes the line of an answer; `false` when the log refused it. */
  function log(request: Request, response: Response, started: number): boolean {
    const ms = Math.round((nowMilliseconds() - started) * 10) / 10;
    const url = request.url;
    if (url !== lastUrl) {
      lastUrl = url;
      lastPath = toJsonString(readPathname(url));
    }
    // A method is an HTTP token (servers and the Request constructor refuse others): it needs
    // no escaping.
    return write(
      `{"time":"${time()}","level":"info","message":"Request","method":"${request.method}",` +
        `"path":${lastPath},"status":${response.status},"ms":${ms}}`,
    ) !== false;
  }
  return (request, info) => {
    const started = nowMilliseconds();
    const answer = handler(request, info);
    // A response ready at once is logged at once and passed on as it came, still ready for the
    // server to write without a turn of the microtask queue (see ResponsePromise).
    if (answer.response) {
      return log(request, answer.response, started) ? answer : withhold(answer.response);
    }
    return answer.then((response) =>
      log(request, response, started) ? response : withhold(response)
    );
  };
}
