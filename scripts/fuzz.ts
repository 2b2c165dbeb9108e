/**
 * The large fuzz run, on demand: starts the real server (main.ts, raised quotas, a temporary KV
 * file) and throws `--runs` random and malformed requests at it (the cases of tests/e2e/_fuzz.ts,
 * which CI runs with a fixed seed and 1,500 cases in tests/e2e/fuzz_test.ts), then prints the
 * figures: cases, statuses (and those of the MCP endpoint apart), failures, throughput and the
 * server's resident memory. A case not answered within 30 s counts as a failure (a hang).
 *
 * Usage: `deno task fuzz [--runs 100000] [--seed N]`
 *
 * @module
 */
import fc from "fast-check";
import { readRssBytes, startServer } from "../tests/e2e/_server.ts";
import { compileContract } from "../tests/e2e/_contract.ts";
import { describeCase, fuzzCase, runCase } from "../tests/e2e/_fuzz.ts";

function readFlag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index >= 0 ? Number(Deno.args[index + 1]) : fallback;
}

const runs = readFlag("runs", 100_000);
const seed = readFlag("seed", Date.now() % 2 ** 31);
const folder = await Deno.makeTempDir({ prefix: "studio-fuzz-" });
const server = await startServer({
  STUDIO_KV_PATH: `${folder}/fuzz.kv`,
  STUDIO_BASE_URL: "https://studio.example",
  STUDIO_TRUST_PROXY: "x-forwarded-for",
  STUDIO_LOG: "quiet", // thousands of requests: no line each
  STUDIO_RATE_LIMIT_READ: "1000000000",
  STUDIO_RATE_LIMIT_WRITE: "1000000000",
  STUDIO_RATE_LIMIT_BOOKING: "1000000000",
});
const mib = (bytes: number | undefined) =>
  bytes === undefined ? "n/a" : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const statuses = new Map<string, number>();
/** The statuses of the answers of the MCP endpoint alone. */
const mcpStatuses = new Map<string, number>();
const failures: string[] = [];
let done = 0;
const started = performance.now();
const rssStart = readRssBytes(server.process.pid);
let rssPeak = rssStart ?? 0;
console.log(`fuzz: ${runs} cases, seed ${seed}, server RSS ${mib(rssStart)}`);
try {
  const contract = compileContract(await (await fetch(`${server.origin}/openapi.json`)).json());
  await fc.assert(
    fc.asyncProperty(fuzzCase, async (value) => {
      const problems = await runCase(server.origin, contract, value, (status, path) => {
        const key = String(status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (path === "/mcp") mcpStatuses.set(key, (mcpStatuses.get(key) ?? 0) + 1);
      });
      if (problems.length) failures.push(`${problems.join("; ")} ← ${describeCase(value)}`);
      if (server.process.exitCode !== null) throw new Error("the server exited");
      if (++done % 10_000 === 0) {
        const rss = readRssBytes(server.process.pid);
        rssPeak = Math.max(rssPeak, rss ?? 0);
        console.log(`  ${done} cases, ${failures.length} failures, RSS ${mib(rss)}`);
      }
    }),
    { seed, numRuns: runs },
  );
} finally {
  const seconds = (performance.now() - started) / 1000;
  const rssEnd = readRssBytes(server.process.pid);
  await server.stop();
  await Deno.remove(folder, { recursive: true });
  const list = (counts: Map<string, number>) =>
    [...counts].sort().map(([status, count]) => `${status}×${count}`).join(" ");
  console.log(
    `fuzz: ${done} cases in ${seconds.toFixed(0)} s (${(done / seconds).toFixed(0)}/s), ` +
      `${failures.length} failures; statuses ${list(statuses)} (of which POST /mcp and the ` +
      `like: ${list(mcpStatuses)}); RSS ${mib(rssStart)} → ${mib(rssEnd)} ` +
      `(peak sampled ${mib(rssPeak)})`,
  );
  for (const failure of failures.slice(0, 20)) console.log(`  ${failure}`);
}
if (failures.length) Deno.exit(1);
