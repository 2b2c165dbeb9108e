/**
 * Benchmark: cold start, measured as the time from launching a process to its first
 * `200 GET /api/v1/health`, for the service next to a plain server of the same runtime (the
 * baselines of scripts/bench_health.ts), alternately for several rounds; prints the medians and
 * their ratio. Goal on Deno: the service within 2× the bare `Deno.serve`.
 *
 * - Deno: `main.ts` against scripts/_bench_baseline.ts.
 * - Node and Bun: the npm package's executable (`npm/cli.js`, built when missing) against
 *   scripts/_bench_baseline_node.mjs and scripts/_bench_baseline_bun.ts.
 *
 * Usage: `deno task bench:start [--runtime deno|node|bun|all] [--rounds 7]` (default: deno)
 *
 * @module
 */
import { readFlag } from "./_bench_support.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const rounds = Number(readFlag("--rounds") ?? 7);
const chosen = readFlag("--runtime") ?? "deno";
const runtimes = chosen === "all" ? ["deno", "node", "bun"] : [chosen];

const STARTS: Record<string, { program: string; service: string[]; baseline: string[] }> = {
  deno: {
    program: Deno.execPath(),
    service: ["run", "--allow-all", "main.ts"],
    baseline: ["run", "--allow-all", "dev/scripts/_bench_baseline.ts"],
  },
  node: {
    program: "node",
    service: [`${ROOT}npm/cli.js`],
    baseline: [`${ROOT}dev/scripts/_bench_baseline_node.mjs`],
  },
  bun: {
    program: "bun",
    service: [`${ROOT}npm/cli.js`],
    baseline: [`${ROOT}dev/scripts/_bench_baseline_bun.ts`],
  },
};

/** A loopback port free at the moment of asking. */
function findFreePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Milliseconds from spawning `args` to its first 200 on /api/v1/health. */
async function timeStart(program: string, args: string[], folder: string): Promise<number> {
  const port = findFreePort();
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      STUDIO_KV_PATH: `${folder}/start-${port}.kv`,
      STUDIO_LOG: "quiet",
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/api/v1/health`);
        await response.body?.cancel();
        if (response.status === 200) return performance.now() - started;
      } catch { /* not listening yet */ }
      if (performance.now() - started > 30_000) throw new Error(`${args.join(" ")}: no answer`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const folder = await Deno.makeTempDir({ prefix: "studio-bench-start-" });
try {
  for (const runtime of runtimes) {
    const start = STARTS[runtime];
    if (!start) throw new Error(`Unknown --runtime "${runtime}": use deno, node, bun or all`);
    const service: number[] = [];
    const baseline: number[] = [];
    // One warm-up each (module caches), then alternate so drift hits both alike.
    await timeStart(start.program, start.service, folder);
    await timeStart(start.program, start.baseline, folder);
    for (let round = 0; round < rounds; round++) {
      service.push(await timeStart(start.program, start.service, folder));
      baseline.push(await timeStart(start.program, start.baseline, folder));
    }
    const ours = median(service);
    const bare = median(baseline);
    const format = (values: number[]) => values.map((value) => value.toFixed(0)).join(", ");
    console.log(`Launch to first GET /api/v1/health 200, ${runtime}, ${rounds} rounds`);
    console.log(`  studio-website   ${ours.toFixed(0)} ms median (${format(service)})`);
    console.log(`  plain server     ${bare.toFixed(0)} ms median (${format(baseline)})`);
    const ratio = ours / bare;
    const goal = runtime === "deno" ? " (goal ≤ 2.0×)" : "";
    console.log(
      `  ratio: ${ratio.toFixed(2)}×${goal}${runtime === "deno" && ratio > 2 ? " NOT MET" : ""}`,
    );
  }
} finally {
  await Deno.remove(folder, { recursive: true });
}
