import { test } from "node:test";
import assert from "node:assert/strict";
import { type AppHost, createApp, runApp } from "../../compose/create_app.ts";
import type { Store } from "../../lib/store/store.ts";
import { createRecordingLogger } from "../_support.ts";
import { createMemoryStore } from "../../testing.ts";

test("createApp() opens a KV file that another process starting at the same moment holds locked", async () => {
  // Found by CI's run of two main.ts processes starting at once on one KV file: one exited with
  // "database is locked" from Deno.openKv itself.
  let attempts = 0;
  const app = await createApp({}, {
    openStore() {
      attempts++;
      if (attempts <= 2) return Promise.reject(new TypeError("database is locked"));
      return Promise.resolve(createMemoryStore());
    },
    logger: createRecordingLogger(),
  });
  try {
    assert.equal(attempts, 3);
    const health = await app.handler(new Request("http://localhost/api/v1/health"));
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await app.close();
  }
});

test("createApp() reports any other failure to open the store at once", async () => {
  let attempts = 0;
  await assert.rejects(
    createApp({}, {
      openStore() {
        attempts++;
        return Promise.reject(new Error("Permission denied (os error 13)"));
      },
      logger: createRecordingLogger(),
    }),
    /Permission denied/,
  );
  assert.equal(attempts, 1);
});

/** A host whose server is a note of what it serves, for runApp() without a socket. */
function createRecordingHost(openStore: () => Promise<Store>) {
  const exits: number[] = [];
  let exited: () => void = () => {};
  const exit = new Promise<void>((resolve) => exited = resolve);
  const served: Array<(request: Request) => Promise<Response>> = [];
  const host: AppHost = {
    env: { PORT: "8123", STUDIO_LOG: "quiet" },
    openStore,
    logger: createRecordingLogger(),
    serve(handler, { port, hostname }) {
      served.push((request) => handler(request, { remoteAddr: { hostname: "127.0.0.1" } }));
      return Promise.resolve({ port, hostname, shutdown: () => Promise.resolve() });
    },
    onSignal() {},
    exit(code) {
      exits.push(code);
      exited();
    },
  };
  return { host, exits, exit, served };
}

test("runApp() listens before it opens the store, which its first use opens", async () => {
  let opened = 0;
  const { host, served } = createRecordingHost(() => {
    opened++;
    return Promise.resolve(createMemoryStore());
  });
  const app = await runApp(host);
  assert.ok(app);
  try {
    assert.equal(served.length, 1, "listening");
    const health = await served[0](new Request("http://localhost:8123/api/v1/health"));
    assert.equal(health.status, 200);
    await health.body?.cancel();
    assert.equal(opened, 0, "a health check does not open the store");
    const month = Temporal.Now.plainDateISO("Europe/Lisbon").toString().slice(0, 7);
    const slots = await served[0](
      new Request(`http://localhost:8123/api/v1/booking/slots?month=${month}`),
    );
    assert.equal(slots.status, 200);
    await slots.body?.cancel();
    assert.equal(opened, 1, "a listing opens it");
  } finally {
    await app.close();
  }
});

// Deno's first global setTimeout or setInterval loads Node's timers module, some 4 ms that a cold
// start would pay before its first answer (scripts/bench_start.ts): the start and the first
// answers wait on AbortSignal.timeout instead (found when a timer added at start cost 5 ms).
test("runApp() and its first answers, a page and a health check, set no global timer", async () => {
  const timers: string[] = [];
  const { setTimeout: realTimeout, setInterval: realInterval } = globalThis;
  const spy = <T extends (...args: never[]) => unknown>(name: string, real: T) =>
    ((...args: Parameters<T>) => {
      timers.push(`${name}: ${new Error().stack?.split("\n").slice(2, 4).join(" ")}`);
      return real(...args);
    }) as unknown as T;
  const { host, served } = createRecordingHost(() => Promise.resolve(createMemoryStore()));
  let app: Awaited<ReturnType<typeof runApp>>;
  globalThis.setTimeout = spy("setTimeout", realTimeout);
  globalThis.setInterval = spy("setInterval", realInterval);
  try {
    app = await runApp(host);
    const page = await served[0](
      new Request("http://localhost:8123/en", {
        headers: { Accept: "text/html", "Accept-Encoding": "br, gzip" },
      }),
    );
    assert.equal(page.status, 200);
    await page.arrayBuffer();
    const health = await served[0](new Request("http://localhost:8123/api/v1/health"));
    assert.equal(health.status, 200);
    await health.arrayBuffer();
  } finally {
    globalThis.setTimeout = realTimeout;
    globalThis.setInterval = realInterval;
  }
  try {
    assert.deepEqual(timers, []);
  } finally {
    await app?.close();
  }
});

test("runApp() stops with exit 1 when the store cannot be opened, once it is first used", async () => {
  const errors: string[] = [];
  const original = console.error;
  console.error = (message: string) => errors.push(message);
  let attempts = 0;
  const { host, exits, exit, served } = createRecordingHost(() => {
    attempts++;
    return Promise.reject(new Error("Permission denied (os error 13)"));
  });
  // No socket holds this process open (the outbox's timer does not, on Node and Bun): a timer does.
  const open = setInterval(() => {}, 1000);
  try {
    const app = await runApp(host);
    assert.ok(app);
    // The outbox's first pass, a second after start, is the first use.
    await exit;
    assert.deepEqual(exits, [1]);
    assert.equal(attempts, 1, "not retried: only a locked file is");
    assert.match(errors.join("\n"), /The store could not be opened: Permission denied/);
    assert.equal(served.length, 1);
    await app.outbox.stop();
  } finally {
    clearInterval(open);
    console.error = original;
  }
});

test("runApp() on SIGTERM: each request answered has its line before Stopped, the last line, and a request that comes after it is not answered", async () => {
  // A server past its grace (Deno's, whose shutdown waits for connections that never end) or
  // whose stop resolved while a handler still ran (Bun's, for a request its client gave up) may
  // still hand the handler a request, or get an answer from it, once the log has ended.
  const written: string[] = [];
  let signal: () => void = () => {};
  let finishShutdown: () => void = () => {};
  let shuttingDown: () => void = () => {};
  const shutdownCalled = new Promise<void>((resolve) => shuttingDown = resolve);
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => exited = resolve);
  let serve: (request: Request) => Promise<Response> = () => Promise.reject(new Error("unserved"));
  const app = await runApp({
    env: { PORT: "8123" },
    openStore: () => Promise.resolve(createMemoryStore()),
    logger: createRecordingLogger(),
    logOutput: {
      write: (text) => Promise.resolve(void written.push(text)),
      schedule() {}, // lines wait for a flush: a stopping process's log is what is tested here
    },
    serve(handler, { port, hostname }) {
      serve = (request) => handler(request, { remoteAddr: { hostname: "127.0.0.1" } });
      return Promise.resolve({
        port,
        hostname,
        shutdown() {
          shuttingDown();
          return new Promise((resolve) => finishShutdown = resolve);
        },
      });
    },
    onSignal: (listener) => signal = listener,
    exit: (code) => exited(code),
  });
  assert.ok(app);
  const health = () => new Request("http://localhost:8123/api/v1/health");
  const before = await serve(health());
  assert.equal(before.status, 200);
  await before.body?.cancel();

  signal();
  await shutdownCalled;
  // Requests in flight when the signal came are answered while the server stops.
  const during = await serve(health());
  assert.equal(during.status, 200);
  await during.body?.cancel();
  finishShutdown();
  assert.equal(await exit, 0);

  let late = false;
  void serve(health()).then(() => late = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(late, false, "no answer once the log has ended");
  const lines = written.join("").split("\n").filter((line) => line !== "").map((line) =>
    JSON.parse(line)
  );
  assert.deepEqual(lines.map((line) => line.message), [
    "Listening",
    "Request",
    "Request",
    "Stopped",
  ]);
});
