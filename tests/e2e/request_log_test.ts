import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { startServer } from "./_server.ts";
import { RUNTIME } from "../_kv.ts";
import { buildCalendar, startIcsFeedServer } from "../_ics_feed.ts";
import { CONNECTION_TIMEOUTS } from "../../lib/host.ts";
import { pageOf } from "./_studio.ts";

/** `METHOD path status`, the key by which answers and log lines are matched. */
function toKey(method: string, path: string, status: number): string {
  return `${method} ${path} ${status}`;
}

function countKeys(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/**
 * Checks a stopped service's standard output against the answers its clients got: a request line
 * for each (a request answered may have lost its answer on the way: never fewer lines), and
 * "Stopped" last.
 *
 * @returns The request lines.
 */
function assertLogged(stdout: string, answered: string[]): Array<Record<string, unknown>> {
  const lines = stdout.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
  const logged = lines.filter((line) => line.message === "Request");
  const loggedCounts = countKeys(
    logged.map((line) => toKey(line.method, line.path, line.status)),
  );
  for (const [key, count] of countKeys(answered)) {
    assert.ok(
      (loggedCounts.get(key) ?? 0) >= count,
      `${key}: ${count} answered, ${loggedCounts.get(key) ?? 0} logged`,
    );
  }
  assert.ok(logged.length >= answered.length, `${answered.length} answered, ${logged.length}`);
  const stopped = lines.findIndex((line) => line.message === "Stopped");
  assert.equal(stopped, lines.length - 1, "Stopped is the last line, after every request's");
  return logged;
}

/** Asserts that the service exited 0 (on Deno, that it ended on the SIGTERM it was sent). */
function assertExited(code: number | null, signal: string | null, output: string): void {
  // Deno's node:child_process reports the signal it sent, whatever the exit: "Stopped" (checked
  // by assertLogged) is the line before exit 0.
  if (RUNTIME === "deno") assert.ok(code === 0 || signal === "SIGTERM", output);
  else assert.equal(code, 0, output);
}

test("the request log has a line for every answered request when SIGTERM comes under load, and Stopped after them", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  try {
    const server = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_RATE_LIMIT_READ: "100000",
    });
    // Standard output alone: a line of standard error must not land inside a batch.
    let stdout = "";
    server.process.stdout?.on("data", (chunk) => stdout += chunk);
    // "close", not "exit": a process may exit before its last output has been read.
    const exited = once(server.process, "close");

    // Health checks, a page (its first request loads the site) and 404 pages at paths of their
    // own, all at once; SIGTERM once a hundred have their answer.
    const paths = [
      ...Array.from({ length: 200 }, () => "/api/v1/health"),
      ...Array.from({ length: 50 }, () => pageOf(["services", "page"], "en").path),
      ...Array.from({ length: 50 }, (_, index) => `/en/missing-${index}`),
    ];
    const answered: string[] = [];
    let stopping: Promise<void> | undefined;
    const requests = paths.map(async (path) => {
      const response = await fetch(`${server.origin}${path}`);
      answered.push(toKey("GET", path, response.status));
      if (answered.length === 100) stopping = server.stop();
      // An answer whose body the stop cut short still counts: its head came, so it was logged.
      await response.arrayBuffer().catch(() => {});
    });
    const outcomes = await Promise.allSettled(requests);
    assert.ok(stopping, `SIGTERM sent: ${answered.length} answered`);
    await stopping;
    const [code, signal] = await exited;
    assertExited(code, signal, server.output());

    const logged = assertLogged(stdout, answered);
    assert.ok(logged.length <= paths.length);
    for (const line of logged) {
      assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(line.level, "info");
      assert.equal(typeof line.ms, "number");
    }
    // Every request was answered or refused (the server closed its connection).
    const refused = outcomes.filter((outcome) => outcome.status === "rejected").length;
    assert.equal(answered.length + refused, paths.length);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test("connections kept alive after the answers a SIGTERM waited for do not hold the stop: the service exits well within its grace, and logs those answers before Stopped", async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-e2e-"));
  // The busy feed holds its answers until told: the listings that read it are in flight.
  const feed = await startIcsFeedServer();
  const held: ServerResponse[] = [];
  feed.setResponder((_request, response) => void held.push(response));
  let running: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    const server = running = await startServer({
      STUDIO_KV_PATH: join(folder, "studio.kv"),
      STUDIO_BUSY_CALENDARS: feed.url,
    });
    let stdout = "";
    server.process.stdout?.on("data", (chunk) => stdout += chunk);
    const exited = once(server.process, "close");

    const month = new Date().toISOString().slice(0, 7);
    const path = "/api/v1/booking/slots";
    const answered: string[] = [];
    let refused = 0;
    // Each on a connection of its own, which the client keeps alive once answered; one that has
    // not reached the service when it stops listening is refused.
    const listings = Array.from({ length: 10 }, async () => {
      try {
        const response = await fetch(`${server.origin}${path}?month=${month}`);
        answered.push(toKey("GET", path, response.status));
        await response.arrayBuffer();
      } catch {
        refused++;
      }
    });
    const heldBy = performance.now() + 10_000;
    while (held.length === 0) {
      if (performance.now() > heldBy) assert.fail("no listing reached the busy feed in 10 s");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const signalledAt = performance.now();
    server.process.kill("SIGTERM");
    // Once the service has begun to stop, the feed answers, and so do the listings.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const response of held) response.end(buildCalendar());
    feed.setBody(buildCalendar());
    await Promise.all(listings);
    const [code, signal] = await exited;
    const exitMilliseconds = performance.now() - signalledAt;
    assertExited(code, signal, server.output());
    // At least the listing whose feed request was held was in flight, and answered.
    assert.ok(answered.length >= 1, `${refused} refused`);
    assert.deepEqual(new Set(answered), new Set([toKey("GET", path, 200)]));
    // Not held until the grace runs out, when the service closes what is still open.
    const graceMilliseconds = CONNECTION_TIMEOUTS.shutdownGraceSeconds * 1000;
    assert.ok(exitMilliseconds < graceMilliseconds * 0.6, `exited ${exitMilliseconds} ms after`);
    assertLogged(stdout, answered);
  } finally {
    // Already gone when the test passed; killed when it failed before the stop.
    if (running?.process.exitCode === null && running.process.signalCode === null) {
      await running.stop({ kill: true });
    }
    await feed.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
