/**
 * The benchmark's baseline: a plain `Deno.serve` handler doing the same work as
 * `GET /api/v1/health` — URL parse and route match, a per-address fixed-window counter, the ten
 * headers and the same JSON — without the router, the pipeline or a library. Started by
 * scripts/bench_health.ts.
 *
 * @module
 */
const LIMIT = 1_000_000_000;
const WINDOW_SECONDS = 60;
let windowIndex = -1;
let counts = new Map<string, number>();

Deno.serve({
  port: Number(Deno.env.get("PORT") ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ message: "Listening", port })),
}, (request, info) => {
  const url = new URL(request.url);
  if (request.method !== "GET" || url.pathname !== "/api/v1/health") {
    return new Response("not found", { status: 404 });
  }
  const nowSeconds = Date.now() / 1000;
  const index = Math.floor(nowSeconds / WINDOW_SECONDS);
  if (index !== windowIndex) {
    windowIndex = index;
    counts = new Map();
  }
  const address = info.remoteAddr.hostname;
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
  return new Response(body, {
    headers: {
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
    },
  });
});
