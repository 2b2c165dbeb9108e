/**
 * The benchmark's Bun baseline: a plain `Bun.serve` handler doing the same work as
 * `GET /api/v1/health` (as scripts/_bench_baseline.ts does on Deno) — URL parse and route match,
 * a per-address fixed-window counter, the ten headers and the same JSON — without the router,
 * the pipeline or a library. Started by scripts/bench_health.ts with `bun`.
 *
 * @module
 */

/** The members of Bun used here (Bun's types are not part of this Deno project). */
interface BunGlobal {
  env: Record<string, string | undefined>;
  serve(options: {
    port: number;
    hostname: string;
    fetch(
      request: Request,
      server: { requestIP(request: Request): { address: string } | null },
    ): Response;
  }): { port: number };
}

const { Bun } = globalThis as unknown as { Bun: BunGlobal };
const LIMIT = 1_000_000_000;
const WINDOW_SECONDS = 60;
let windowIndex = -1;
let counts = new Map<string, number>();

const server = Bun.serve({
  port: Number(Bun.env.PORT ?? 0),
  hostname: "127.0.0.1",
  fetch(request, bun) {
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
    const address = bun.requestIP(request)?.address ?? "";
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
  },
});
console.log(JSON.stringify({ message: "Listening", port: server.port }));
