import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { readRssBytes, startServer } from "./_server.ts";
import { compileContract } from "./_contract.ts";
import { describeCase, fuzzCase, runCase } from "./_fuzz.ts";

/** Cases per run in CI; `FUZZ_RUNS` enlarges it (scripts/fuzz.ts runs 100,000). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
/** The fixed seed of CI; `FUZZ_SEED` varies it. */
const SEED = Number(process.env.FUZZ_SEED ?? 20260801);
/**
 * How much the server's resident memory may grow over the run, after a warm-up of the same cases.
 * Measured growth over 1,500 cases: a few MiB on Deno, Node and Bun; the bound leaves room for the
 * garbage collectors' own pace while catching a leak of the cases' bodies (tens of MiB).
 */
const RSS_GROWTH_BOUND_BYTES = 64 * 1024 * 1024;

test(`the real server survives ${RUNS} random and malformed requests (seed ${SEED}): no undocumented 5xx or hang, an ErrorResponse for every /api/ failure, a JSON-RPC answer for every POST /mcp, bounded memory`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-fuzz-"));
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "fuzz.kv"),
    STUDIO_BASE_URL: "https://studio.example",
    STUDIO_TRUST_PROXY: "x-forwarded-for",
    STUDIO_RATE_LIMIT_READ: "100000000",
    STUDIO_RATE_LIMIT_WRITE: "100000000",
    STUDIO_RATE_LIMIT_BOOKING: "100000000",
  });
  try {
    const contract = compileContract(await (await fetch(`${server.origin}/openapi.json`)).json());
    // Warm-up: the same kinds of cases with another seed, so that lazy start-up work (compiled
    // code, caches of content and holds) is in the baseline.
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (value) => {
        await runCase(server.origin, contract, value);
      }),
      { seed: SEED + 1, numRuns: Math.min(300, RUNS) },
    );
    const before = readRssBytes(server.process.pid);
    await fc.assert(
      fc.asyncProperty(fuzzCase, async (value) => {
        const problems = await runCase(server.origin, contract, value);
        assert.deepEqual(problems, [], describeCase(value));
        assert.equal(server.process.exitCode, null, "the server is still up");
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    const health = await fetch(`${server.origin}/api/v1/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const after = readRssBytes(server.process.pid);
    if (before !== undefined && after !== undefined) {
      assert.ok(
        after - before < RSS_GROWTH_BOUND_BYTES,
        `RSS grew from ${before >> 20} MiB to ${after >> 20} MiB`,
      );
    }
  } finally {
    await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
