import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type Socket } from "node:net";
import { once } from "node:events";
import { Buffer } from "node:buffer";
import { startServer } from "./_server.ts";
import { RUNTIME } from "../_kv.ts";
import { CONNECTION_TIMEOUTS } from "../../lib/host.ts";
import { BODY_TIMEOUT_MILLISECONDS } from "../../lib/http/read_body.ts";

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

/** What a connection gave after a request whose body was never finished. */
interface EarlyAnswer {
  /** The answer's status; 0 when none came. */
  status: number;
  /** The answer's `Connection` field, lower-cased; empty when absent. */
  connection: string;
  /** Seconds from the request to the answer's first byte. */
  answerSeconds: number;
  /** Seconds from the answer's first byte until the server closed, `Infinity` when it had not. */
  closeSeconds: number;
}

/**
 * Sends a request head announcing a body of `Content-Length: 1000` and then only its first
 * byte, and never the rest; resolves with the answer and the seconds until the server closed the
 * connection after it (`Infinity` when still open `giveUpSeconds` after the answer).
 */
function sendUnfinished(
  port: number,
  request: { method: string; path: string; contentType?: string },
  giveUpSeconds: number,
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let text = "";
    let answered = 0;
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    const noAnswer = setTimeout(() => reject(new Error("No answer within 30 s")), 30_000);
    const socket = connect(port, "127.0.0.1", () => {
      const type = request.contentType ? `Content-Type: ${request.contentType}\r\n` : "";
      socket.write(
        `${request.method} ${request.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${type}` +
          "Accept: application/json\r\nContent-Length: 1000\r\n\r\n{",
      );
    });
    const finish = (closed: boolean) => {
      clearTimeout(noAnswer);
      clearTimeout(giveUp);
      socket.destroy();
      const head = text.slice(0, Math.max(text.indexOf("\r\n\r\n"), 0));
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        connection: /\r\nconnection: *([^\r]*)/i.exec(head)?.[1].toLowerCase() ?? "",
        answerSeconds: answered ? (answered - started) / 1000 : Infinity,
        closeSeconds: closed && answered ? (performance.now() - answered) / 1000 : Infinity,
      });
    };
    socket.on("data", (chunk) => {
      if (!answered) {
        answered = performance.now();
        giveUp = setTimeout(() => finish(false), giveUpSeconds * 1000);
      }
      text += chunk.toString("latin1");
    });
    socket.on("error", () => {});
    socket.on("close", () => finish(true));
  });
}

// Deno.serve (2.9, its own HTTP/1.1 server since 2.8.3) answers a request whose body is
// unfinished (with `connection: close` or without), then reads and discards the rest of the
// declared body before it closes, with no time limit; nothing a handler can do (cancel the body,
// a `Connection: close` field, a body stream that errors) closes it sooner without cutting the
// answer short. A self-hosted Deno server belongs behind a proxy that enforces its timeouts
// (README, Deploying). Upstream: https://github.com/denoland/deno/issues/3515 (no read timeouts
// in Deno's HTTP server).
test(
  `the server closes the connection within 3 s of an answer given before the request's body arrived (${RUNTIME})`,
  {
    skip: RUNTIME === "deno" &&
      "Deno.serve keeps the connection until the client sends the rest of the body",
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-early-"));
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    try {
      const port = Number(new URL(server.origin).port);
      const limitSeconds = BODY_TIMEOUT_MILLISECONDS / 1000;
      // Bun hands the body of a GET to no one, and the host leaves it to Bun's idle timeout.
      const unreadBound = RUNTIME === "bun" ? CONNECTION_TIMEOUTS.idleSeconds + 3 : 3;
      const [stalled, refused, unread] = await Promise.all([
        // The body timeout: a 400 once the body has not arrived in time.
        sendUnfinished(port, {
          method: "POST",
          path: "/api/v1/contact",
          contentType: "application/json",
        }, 6),
        // A refusal before the body is read: a media type the API does not accept.
        sendUnfinished(
          port,
          { method: "POST", path: "/api/v1/contact", contentType: "text/csv" },
          6,
        ),
        // An answer that never reads the body: a health check with one.
        sendUnfinished(port, { method: "GET", path: "/api/v1/health" }, unreadBound + 3),
      ]);
      assert.equal(stalled.status, 400);
      assert.ok(
        stalled.answerSeconds >= limitSeconds - 0.5 && stalled.answerSeconds < limitSeconds + 5,
        `the stalled body was answered after ${stalled.answerSeconds} s`,
      );
      assert.equal(refused.status, 400);
      for (const [name, answer] of Object.entries({ stalled, refused })) {
        assert.ok(
          answer.closeSeconds < 3,
          `${name}: the connection was closed ${answer.closeSeconds} s after the answer`,
        );
        assert.equal(answer.connection, "close", `${name}: the answer says it closes`);
      }
      assert.equal(unread.status, 200);
      assert.ok(
        unread.closeSeconds < unreadBound,
        `unread: the connection was closed ${unread.closeSeconds} s after the answer`,
      );
      if (RUNTIME === "node") assert.equal(unread.connection, "close");
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

/**
 * Reads answers from a connection, one at a time: each resolves with the head's status and
 * `Connection` field once the body its `Content-Length` declares has arrived.
 */
function createAnswerReader(socket: Socket): () => Promise<{ status: number; connection: string }> {
  let buffered = "";
  let waiting: (() => void) | undefined;
  socket.on("data", (chunk) => {
    buffered += chunk.toString("latin1");
    waiting?.();
  });
  return () =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`No whole answer in 10 s: ${buffered}`)),
        10_000,
      );
      const take = () => {
        const headEnd = buffered.indexOf("\r\n\r\n");
        if (headEnd < 0) return;
        const head = buffered.slice(0, headEnd);
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
        if (!(buffered.length >= headEnd + 4 + length)) return;
        buffered = buffered.slice(headEnd + 4 + length);
        waiting = undefined;
        clearTimeout(timer);
        resolve({
          status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
          connection: /\r\nconnection: *([^\r]*)/i.exec(head)?.[1].toLowerCase() ?? "",
        });
      };
      waiting = take;
      take();
    });
}

test(`a connection stays open across health checks and a whole JSON POST (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-keep-alive-"));
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
  });
  const socket = connect(Number(new URL(server.origin).port), "127.0.0.1");
  try {
    await once(socket, "connect");
    const readAnswer = createAnswerReader(socket);
    const health = "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const inquiry = JSON.stringify({
      Name: "Ana Sousa",
      Email: "ana@example.pt",
      Message: "A new website for our ceramics brand, please.",
      Category: "website",
    });
    const post = "POST /api/v1/contact HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "Content-Type: application/json\r\nAccept: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(inquiry)}\r\n\r\n${inquiry}`;
    const answers = [];
    for (const request of [health, post, health]) {
      socket.write(request);
      answers.push(await readAnswer());
    }
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200, 200]);
    for (const answer of answers) assert.notEqual(answer.connection, "close");
  } finally {
    socket.destroy();
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
