import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findFreePort, runServerExpectingFailure, startServer } from "./_server.ts";
import { RUNTIME, withKvFile } from "../_kv.ts";
import { buildBookingBody } from "../_booking.ts";
import { nextMonth, pageOf } from "./_studio.ts";
import { spawn } from "node:child_process";
import { once } from "node:events";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** Reads the generated link-signing secret straight from the KV file. */
function readSecret(path: string): Promise<string | null> {
  return withKvFile(path, async (kv) => (await kv.get<string>(["settings", "secret"])).value);
}

test("the service serves health, the index, 404, 405 and 429 on a port the system picks, with links to it", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_RATE_LIMIT_READ: "6",
  });
  try {
    const health = await fetch(`${server.origin}/api/v1/health`);
    assert.equal(health.status, 200);
    assert.equal(health.headers.get("API-Version"), "1");
    assert.equal(health.headers.get("RateLimit-Policy"), '"read";q=6;w=60');
    const body = await health.json();
    assert.equal(body.status, "ok");
    assert.ok(Math.abs(Date.parse(body.time) - Date.now()) < 60_000);

    // PORT=0 without STUDIO_BASE_URL: the default base URL names the port the system picked.
    const index = await fetch(`${server.origin}/api/v1`);
    assert.equal(index.status, 200);
    const { basePath, openapi } = await index.json();
    assert.equal(basePath, "/api/v1");
    const port = new URL(server.origin).port;
    assert.equal(openapi, `http://localhost:${port}/openapi.json`);
    assert.match(server.output(), new RegExp(`"baseUrl":"http://localhost:${port}"`));

    const missing = await fetch(`${server.origin}/api/v1/nowhere`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "not-found");

    const wrongMethod = await fetch(`${server.origin}/api/v1/health`, { method: "DELETE" });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("Allow"), "GET, HEAD");
    await wrongMethod.body?.cancel();

    let limited: Response | undefined;
    for (let attempt = 0; attempt < 10 && !limited; attempt++) {
      const response = await fetch(`${server.origin}/api/v1/health`);
      if (response.status === 429) limited = response;
      else await response.body?.cancel();
    }
    assert.ok(limited, "the read quota of 6 is exhausted");
    const retryAfter = Number(limited.headers.get("Retry-After"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(limited.headers.get("RateLimit-Remaining"), "0");
    assert.equal((await limited.json()).error.code, "rate-limited");

    const spoofed = await fetch(`${server.origin}/api/v1/health`, {
      headers: { "X-Forwarded-For": "203.0.113.99" },
    });
    assert.equal(spoofed.status, 429, "a spoofed X-Forwarded-For does not reset the quota");
    await spoofed.body?.cancel();

    const bigHeaders = await fetch(`${server.origin}/api/v2`, {
      headers: { "X-Filler": "x".repeat(8192) },
    });
    assert.equal(bigHeaders.status, 429);
    await bigHeaders.body?.cancel();
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

/** The free slots of next month, as the API lists them. */
async function listNextMonthSlots(origin: string): Promise<string[]> {
  const response = await fetch(`${origin}/api/v1/booking/slots?month=${nextMonth()}`);
  const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
  return Object.values(body.slots).flat().map((slot) => slot.start);
}

test("the service keeps its data in the KV file across a restart", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const path = join(folder, "nested", "studio.kv");
  try {
    const first = await startServer({
      STUDIO_KV_PATH: path,
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const health = await fetch(`${first.origin}/api/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    // A booking is stored, and its mail's links are signed with the secret made on first use.
    const [start] = await listNextMonthSlots(first.origin);
    const booked = await fetch(`${first.origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(buildBookingBody(start)),
    });
    assert.equal(booked.status, 201, await booked.text());
    await first.stop({ kill: true });
    const secret = await readSecret(path);
    assert.match(secret ?? "", /^[0-9a-f]{64}$/);

    const second = await startServer({
      STUDIO_KV_PATH: path,
      STUDIO_SMTP_URL: "smtp://127.0.0.1:9",
    });
    const again = await fetch(`${second.origin}/api/health`);
    assert.equal(again.status, 200);
    await again.body?.cancel();
    assert.ok(!(await listNextMonthSlots(second.origin)).includes(start), "the slot stays taken");
    await second.stop();
    assert.equal(await readSecret(path), secret, "the secret made on first use is kept");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("the service refuses to start on a bad variable and names it", async () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: "eighty" }, /Invalid PORT: "eighty"/],
    [{ STUDIO_TRUST_PROXY: "forwarded" }, /Invalid STUDIO_TRUST_PROXY/],
    [{ STUDIO_CONFIRMATION: "sometimes" }, /Invalid STUDIO_CONFIRMATION/],
  ];
  for (const [env, message] of cases) {
    const result = await runServerExpectingFailure(env);
    assert.equal(result.code, 1, result.output);
    assert.match(result.output, message);
  }
  // A deprecation dated in the past: its sunset counts 180 days from when headers are first sent.
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  try {
    const result = await runServerExpectingFailure({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_DEPRECATION: "2025-01-01T00:00:00Z",
      STUDIO_SUNSET: "2025-07-01T00:00:00Z",
      STUDIO_SUNSET_LINK: "https://studio.example/en/agents#v2",
    });
    assert.equal(result.code, 1, result.output);
    assert.match(result.output, /Invalid STUDIO_SUNSET: the service first sent this deprecation/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("two instances on one KV file with STUDIO_RATE_LIMIT_STORE=kv share a client's quota", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const env = {
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_RATE_LIMIT_READ: "4",
    STUDIO_RATE_LIMIT_STORE: "kv",
  };
  const first = await startServer(env);
  const second = await startServer(env);
  try {
    const statuses: number[] = [];
    for (const server of [first, second, first, second, first, second]) {
      const response = await fetch(`${server.origin}/api/v1/health`);
      statuses.push(response.status);
      await response.body?.cancel();
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    assert.match(first.output(), /"rateLimitStore":"kv"/);
  } finally {
    await first.stop();
    await second.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test("HEAD answers with the Content-Length GET sends, and no body (RFC 9110, section 9.3.2)", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  const server = await startServer({ STUDIO_KV_PATH: join(folder, "studio.kv") });
  try {
    // A page of text and its Markdown: the English page for agents, where the studio has one.
    const { path: page } = pageOf(["agents", "page"], "en");
    const paths = [
      "/api/v1/health",
      "/api/v1",
      "/openapi.json",
      "/.well-known/api-catalog",
      page,
      `/md${page}`,
      "/llms.txt",
      "/nowhere",
    ];
    // fetch asks for gzip and unpacks it: ask for the identity, so the lengths compare.
    const headers = { "Accept-Encoding": "identity" };
    for (const path of paths) {
      const get = await fetch(`${server.origin}${path}`, { headers });
      const bytes = (await get.arrayBuffer()).byteLength;
      assert.ok(bytes > 0, path);
      const head = await fetch(`${server.origin}${path}`, { method: "HEAD", headers });
      assert.equal(head.status, get.status, path);
      assert.equal(head.headers.get("Content-Length"), String(bytes), path);
      assert.equal((await head.arrayBuffer()).byteLength, 0, path);
    }
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});

test(
  "deno serve serve.ts: without STUDIO_BASE_URL, the base URL and the booking origin name the port served; it logs Listening and Stopped as task start does",
  {
    skip: RUNTIME !== "deno" && "serve.ts is Deno's entry",
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-serve-"));
    const port = await findFreePort();
    const child = spawn(process.execPath, [
      "serve",
      "--allow-all",
      "--quiet",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "adapters/deno/serve.ts",
    ], {
      cwd: fileURLToPath(new URL("../../", import.meta.url)),
      env: { ...process.env, NO_COLOR: "1", STUDIO_KV_PATH: join(folder, "studio.kv") },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout?.on("data", (chunk) => stdout += chunk);
    const closed = once(child, "close");
    try {
      const origin = `http://127.0.0.1:${port}`;
      let index: Response | undefined;
      for (let attempt = 0; attempt < 100 && !index; attempt++) {
        index = await fetch(`${origin}/api/v1`).catch(() => undefined);
        if (!index) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(index, "deno serve answered");
      assert.equal(index.status, 200);
      assert.equal((await index.json()).openapi, `http://localhost:${port}/openapi.json`);
      // A booking from the page it serves names that origin, and is not refused for it.
      const booking = await fetch(`${origin}/api/v1/booking`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: `http://localhost:${port}` },
        body: "{}",
      });
      assert.equal(booking.status, 400, "validated, not refused for its Origin");
      await booking.body?.cancel();
      child.kill("SIGTERM");
      await closed;
      const lines = stdout.split("\n").filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
      const listening = lines.find((line) => line.message === "Listening");
      assert.ok(listening, stdout);
      assert.equal(listening.port, port);
      assert.equal(listening.baseUrl, `http://localhost:${port}`);
      assert.equal(lines.at(-1)?.message, "Stopped", stdout);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

test(
  "build/server/main.js, the entry a deployment runs, serves health, a page and a picture, and logs Listening and Stopped",
  { skip: RUNTIME !== "deno" && "the bundle is Deno's deployment entry" },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-bundle-"));
    const port = await findFreePort();
    const child = spawn(
      process.execPath,
      [
        "run",
        "--allow-all",
        "--quiet",
        "--config",
        "build/server/config.json",
        "build/server/main.js",
      ],
      {
        cwd: fileURLToPath(new URL("../../", import.meta.url)),
        env: {
          ...process.env,
          NO_COLOR: "1",
          PORT: String(port),
          HOST: "127.0.0.1",
          STUDIO_KV_PATH: join(folder, "studio.kv"),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let stdout = "";
    child.stdout?.on("data", (chunk) => stdout += chunk);
    const closed = once(child, "close");
    try {
      const origin = `http://127.0.0.1:${port}`;
      let health: Response | undefined;
      for (let attempt = 0; attempt < 100 && !health; attempt++) {
        health = await fetch(`${origin}/api/v1/health`).catch(() => undefined);
        if (!health) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(health, "the bundle answered");
      assert.equal(health.status, 200);
      assert.equal((await health.json()).status, "ok");
      const page = await fetch(`${origin}/en`, { headers: { Accept: "text/html" } });
      assert.equal(page.status, 200);
      const html = await page.text();
      const card = /<meta property="og:image" content="[^"]*(\/assets\/[^"]+)"/.exec(html)?.[1];
      assert.ok(card, "the page names its card");
      const picture = await fetch(`${origin}${card}`);
      assert.equal(picture.status, 200);
      assert.equal(picture.headers.get("Content-Type"), "image/png");
      assert.equal(picture.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
      assert.ok((await picture.arrayBuffer()).byteLength > 1000);
      child.kill("SIGTERM");
      await closed;
      const lines = stdout.split("\n").filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line));
      assert.ok(lines.some((line) => line.message === "Listening"), stdout);
      assert.equal(lines.at(-1)?.message, "Stopped", stdout);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

test("the service logs one line per request without its query, a line when it stops, and none with STUDIO_LOG=quiet", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  try {
    const server = await startServer({ STUDIO_KV_PATH: join(folder, "studio.kv") });
    await (await fetch(`${server.origin}/api/v1/health?email=ana@example.pt`)).body?.cancel();
    await (await fetch(`${server.origin}/nowhere`)).body?.cancel();
    await server.stop();
    const lines = server.output().split("\n").filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.message === "Request");
    assert.deepEqual(
      requests.map(({ method, path, status }) => ({ method, path, status })),
      [
        { method: "GET", path: "/api/v1/health", status: 200 },
        { method: "GET", path: "/nowhere", status: 404 },
      ],
    );
    for (const line of requests) assert.equal(typeof line.ms, "number");
    assert.doesNotMatch(server.output(), /ana@example/);
    assert.ok(lines.some((line) => line.message === "Stopped"), server.output());

    const quiet = await startServer({
      STUDIO_KV_PATH: join(folder, "quiet.kv"),
      STUDIO_LOG: "quiet",
    });
    await (await fetch(`${quiet.origin}/api/v1/health`)).body?.cancel();
    await quiet.stop();
    assert.doesNotMatch(quiet.output(), /"message":"Request"/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
