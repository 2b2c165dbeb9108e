import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:net";
import { startServer } from "./_server.ts";
import { RUNTIME } from "../_kv.ts";
import { CONNECTION_TIMEOUTS } from "../../lib/host.ts";

/**
 * Opens a connection, sends the start of a request head and then, every 2 s, one more header
 * line (`trickle`) or nothing; resolves with the seconds until the server closed it, or
 * `Infinity` when it was still open after `giveUpSeconds`.
 */
function holdHead(port: number, trickle: boolean, giveUpSeconds: number): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1", () => {
      socket.write("GET /api/v1/health HTTP/1.1\r\nHost: studio.example\r\n");
    });
    const timer = trickle
      ? setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 2_000)
      : undefined;
    const finish = (seconds: number) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve(seconds);
    };
    const giveUp = setTimeout(() => finish(Infinity), giveUpSeconds * 1000);
    socket.on("data", () => {});
    socket.on("error", () => {});
    socket.on("close", () => finish((performance.now() - started) / 1000));
  });
}

// Deno.serve has no timeout for request heads: a self-hosted Deno server belongs behind a proxy
// that enforces one (README, Deploying; SECURITY.md). Node enforces both cases, Bun the silent one.
test(
  `the server closes a connection whose request head does not arrive in time (${RUNTIME})`,
  {
    skip: RUNTIME === "deno" && "Deno.serve has no request-head timeout",
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-slow-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    try {
      const bound = CONNECTION_TIMEOUTS.headersSeconds + 5;
      const port = Number(new URL(server.origin).port);
      const [silent, trickling] = await Promise.all([
        holdHead(port, false, bound),
        RUNTIME === "node" ? holdHead(port, true, bound) : Promise.resolve(0),
      ]);
      assert.ok(silent < bound, `a silent half-sent head was closed after ${silent} s`);
      assert.ok(trickling < bound, `a trickled head was closed after ${trickling} s`);
      // The server still answers.
      const response = await fetch(`${server.origin}/api/v1/health`);
      assert.equal(response.status, 200);
      await response.body?.cancel();
    } finally {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
