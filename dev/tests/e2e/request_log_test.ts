import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { startServer } from "./_server.ts";
import { RUNTIME } from "../_kv.ts";

/** `METHOD path status`, the key by which answers and log lines are matched. */
function toKey(method: string, path: string, status: number): string {
  return `${method} ${path} ${status}`;
}

function countKeys(keys: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
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
      ...Array.from({ length: 50 }, () => "/en/services"),
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
    // Deno's node:child_process reports the signal it sent, whatever the exit: "Stopped" (checked
    // below) is the line before exit 0.
    if (RUNTIME === "deno") assert.ok(code === 0 || signal === "SIGTERM", server.output());
    else assert.equal(code, 0, server.output());

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
    // A request the server answered may still have lost its answer on the way: never fewer.
    assert.ok(logged.length >= answered.length, `${answered.length} answered, ${logged.length}`);
    assert.ok(logged.length <= paths.length);
    for (const line of logged) {
      assert.match(line.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(line.level, "info");
      assert.equal(typeof line.ms, "number");
    }
    const stopped = lines.findIndex((line) => line.message === "Stopped");
    assert.equal(stopped, lines.length - 1, "Stopped is the last line, after every request's");
    // Every request was answered or refused (the server closed its connection).
    const refused = outcomes.filter((outcome) => outcome.status === "rejected").length;
    assert.equal(answered.length + refused, paths.length);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
