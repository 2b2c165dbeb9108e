// @ts-check
/**
 * The benchmark's Node baseline: a plain `node:http` server doing the same work as
 * `GET /api/v1/health` (as scripts/_bench_baseline.ts does on Deno) — URL parse and route match,
 * a per-address fixed-window counter, the ten headers and the same JSON with its
 * `Content-Length`, on a connection kept alive as long as the service's — without the router,
 * the pipeline, a fetch adapter or a library. Started by scripts/bench_health.ts.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import process from "node:process";

const LIMIT = 1_000_000_000;
const WINDOW_SECONDS = 60;
let windowIndex = -1;
let counts = new Map();

// The service's idle timeout (lib/host.ts): Node writes it in every answer's `Keep-Alive`.
const server = createServer({ keepAliveTimeout: 10_000 }, (request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (request.method !== "GET" || url.pathname !== "/api/v1/health") {
    response.writeHead(404).end("not found");
    return;
  }
  const nowSeconds = Date.now() / 1000;
  const index = Math.floor(nowSeconds / WINDOW_SECONDS);
  if (index !== windowIndex) {
    windowIndex = index;
    counts = new Map();
  }
  const address = request.socket.remoteAddress ?? "";
  const count = (counts.get(address) ?? 0) + 1;
  counts.set(address, count);
  const remaining = Math.max(0, LIMIT - count);
  const reset = Math.max(1, Math.ceil((index + 1) * WINDOW_SECONDS - nowSeconds));
  const body = JSON.stringify({
    status: "ok",
    service: "studio-website",
    version: "1",
    time: new Date().toISOString(),
  });
  response.writeHead(200, {
    "Content-Type": "application/json",
    "Cache-Control": "no-store",
    "API-Version": "1",
    "X-Content-Type-Options": "nosniff",
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Expose-Headers":
      "API-Version, Deprecation, ETag, Link, RateLimit, RateLimit-Limit, RateLimit-Policy, RateLimit-Remaining, RateLimit-Reset, Retry-After, Sunset",
    "RateLimit-Policy": `"read";q=${LIMIT};w=${WINDOW_SECONDS}`,
    "RateLimit": `"read";r=${remaining};t=${reset}`,
    "RateLimit-Limit": String(LIMIT),
    "RateLimit-Remaining": String(remaining),
    "RateLimit-Reset": String(reset),
    // As the service sends it: a body of known length is not chunked.
    "Content-Length": Buffer.byteLength(body),
  }).end(body);
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  console.log(JSON.stringify({ message: "Listening", port }));
});
process.once("SIGTERM", () => process.exit(0));
