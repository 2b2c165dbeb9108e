import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { startServer } from "./_server.ts";
import { RUNTIME } from "../_kv.ts";
import { BODY_TIMEOUT_MILLISECONDS } from "../../lib/http/read_body.ts";
import { CONNECTION_TIMEOUTS } from "../../lib/host.ts";

/** What a raw exchange gave: the seconds until the status line, the status, the body. */
interface RawAnswer {
  seconds: number;
  status: number;
  contentType: string;
  body: string;
}

/** A request head that announces 5,000 bytes of JSON: the body that follows is never complete. */
function toHead(path: string): string {
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    "Accept: application/json, text/event-stream\r\nContent-Length: 5000\r\n\r\n";
}

/**
 * Sends a request head announcing 5,000 bytes, then one byte (`stall`) or one byte a second
 * (`drip`), and never the rest. Resolves with the answer once its body is complete (or the
 * connection closed), `status: 0` when nothing came within `giveUpSeconds`. With `sockets`, the
 * connection is left open after the answer, as a client that never finishes its request may
 * leave it, and added there for the caller to close.
 */
function sendUnfinished(
  port: number,
  options: { path: string; drip: boolean; giveUpSeconds: number; sockets?: Socket[] },
): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let text = "";
    let seconds = Infinity;
    let done = false;
    const socket = connect(port, "127.0.0.1", () => socket.write(`${toHead(options.path)}{`));
    options.sockets?.push(socket);
    const drip = options.drip
      ? setInterval(() => socket.writable && socket.write(" "), 1_000)
      : undefined;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(drip);
      clearTimeout(giveUp);
      if (!options.sockets) socket.destroy();
      const headEnd = text.indexOf("\r\n\r\n");
      const head = headEnd < 0 ? text : text.slice(0, headEnd);
      const chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
      const body = headEnd < 0 ? "" : text.slice(headEnd + 4);
      resolve({
        seconds,
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /\r\ncontent-type: *([^\r]*)/i.exec(head)?.[1] ?? "",
        body: chunked ? unchunk(body) : body,
      });
    };
    const giveUp = setTimeout(finish, options.giveUpSeconds * 1000);
    socket.on("data", (chunk) => {
      if (!text) seconds = (performance.now() - started) / 1000;
      text += chunk.toString("utf8");
      // The answer is complete once its declared length, or its last chunk, has arrived.
      const headEnd = text.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const head = text.slice(0, headEnd);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
      const chunked = /\r\ntransfer-encoding: *chunked/i.test(head);
      if (
        length ? text.length >= headEnd + 4 + Number(length) : chunked && text.endsWith("0\r\n\r\n")
      ) {
        finish();
      }
    });
    socket.on("error", () => {});
    socket.on("close", finish);
  });
}

/** The payload of a chunked body (RFC 9112, 7.1). */
function unchunk(body: string): string {
  let payload = "";
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return payload;
    payload += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 4 + size);
  }
}

/** The JSON-RPC error of an answer's body. */
function readJsonRpcError(answer: RawAnswer): { code: number; message: string } {
  const parsed = JSON.parse(answer.body) as { jsonrpc: string; error: { code: number } };
  assert.equal(parsed.jsonrpc, "2.0");
  return parsed.error as { code: number; message: string };
}

const LIMIT_SECONDS = BODY_TIMEOUT_MILLISECONDS / 1000;

test(`POST /mcp gives up on a body that stalls or drips at ${LIMIT_SECONDS} s with a JSON-RPC 400, as the API does (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-mcp-slow-"));
  const server = await startServer({ STUDIO_KV_PATH: join(folder, "studio.kv") });
  try {
    const port = Number(new URL(server.origin).port);
    const giveUpSeconds = LIMIT_SECONDS + 20;
    const [stalled, dripped, api] = await Promise.all([
      sendUnfinished(port, { path: "/mcp", drip: false, giveUpSeconds }),
      sendUnfinished(port, { path: "/mcp", drip: true, giveUpSeconds }),
      sendUnfinished(port, { path: "/api/v1/contact", drip: false, giveUpSeconds }),
    ]);
    assert.equal(api.status, 400, "the API's verdict on the same request");
    for (const [name, answer] of [["stalled", stalled], ["dripped", dripped]] as const) {
      assert.equal(answer.status, 400, `${name}: ${JSON.stringify(answer)}`);
      assert.equal(answer.contentType, "application/json");
      assert.ok(
        answer.seconds >= LIMIT_SECONDS - 0.5 && answer.seconds < LIMIT_SECONDS + 5,
        `${name}: answered after ${answer.seconds} s`,
      );
      const error = readJsonRpcError(answer);
      assert.equal(error.code, -32000);
      assert.equal(
        error.message,
        `Bad Request: the request body did not arrive within ${LIMIT_SECONDS} seconds`,
      );
    }
    // The server still answers.
    const health = await fetch(`${server.origin}/api/v1/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test(`SIGTERM with 20 unfinished bodies on /mcp answers each a JSON-RPC 503 at once and the process exits within its grace (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-mcp-stop-"));
  const server = await startServer({ STUDIO_KV_PATH: join(folder, "studio.kv") });
  const sockets: Socket[] = [];
  try {
    const port = Number(new URL(server.origin).port);
    const answers = Array.from(
      { length: 20 },
      (_, index) =>
        sendUnfinished(port, { path: "/mcp", drip: index % 2 === 1, giveUpSeconds: 60, sockets }),
    );
    // Time for the heads to reach the handler; one that arrives after the signal is refused too.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const started = performance.now();
    const exited = once(server.process, "exit").then(() => (performance.now() - started) / 1000);
    server.process.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<number>((resolve) => timer = setTimeout(resolve, 30_000, Infinity));
    const exitSeconds = await Promise.race([exited, bound]);
    clearTimeout(timer);
    const graceSeconds = CONNECTION_TIMEOUTS.shutdownGraceSeconds;
    assert.ok(exitSeconds < graceSeconds + 3, `the process exited after ${exitSeconds} s`);
    const settled = await Promise.all(answers);
    for (const answer of settled) {
      assert.equal(answer.status, 503, JSON.stringify(answer));
      assert.ok(answer.seconds < 1.5 + 2, `answered ${answer.seconds} s after it was sent`);
      assert.equal(answer.contentType, "application/json");
      assert.match(readJsonRpcError(answer).message, /the server is stopping/);
    }
    assert.match(server.output(), /"message":"Stopped"/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await server.stop({ kill: true });
    rmSync(folder, { recursive: true, force: true });
  }
});
