/**
 * Benchmark: `GET /api/v1/health` through the real service (read quota raised) next to a plain
 * server of the same runtime doing the same work, both measured with `wrk` (Debian package) on
 * loopback in the same run, on each runtime:
 *
 * - Deno: `main.ts` (`Deno.serve`) against scripts/_bench_baseline.ts (plain `Deno.serve`);
 *   target ≥ 85%.
 * - Node: the npm package's executable (`@hono/node-server`) against
 *   scripts/_bench_baseline_node.mjs (plain `node:http`).
 * - Bun: the npm package's executable (`Bun.serve`) against scripts/_bench_baseline_bun.ts
 *   (plain `Bun.serve`).
 *
 * Servers run on core 0 and wrk on core 1 (with `taskset`, where present) so they do not
 * compete; each pair is measured alternately for several rounds and the medians compared. Node
 * and Bun run the built package in npm/ (built first when missing: `deno task build:npm`).
 *
 * Usage: `deno task bench:health [--runtime deno|node|bun|all] [--seconds 10] [--rounds 3]
 * [--connections 50]` (default: all three)
 *
 * @module
 */
import {
  type BenchProcess,
  compare,
  printRatio,
  readFlag,
  startProcess,
} from "./_bench_support.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);
const runtimes = (readFlag("--runtime") ?? "all") === "all"
  ? ["deno", "node", "bun"]
  : [readFlag("--runtime") as string];

/** How to start the service and the plain baseline on one runtime. */
interface RuntimeBench {
  program: string;
  service: string[];
  baseline: string[];
  baselineLabel: string;
  version(): Promise<string>;
}

const ROOT = new URL("../../", import.meta.url).pathname;

async function readVersion(program: string): Promise<string> {
  const output = await new Deno.Command(program, { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(output.stdout).trim();
}

const BENCHES: Record<string, RuntimeBench> = {
  deno: {
    program: Deno.execPath(),
    service: ["run", "--allow-all", "main.ts"],
    baseline: ["run", "--allow-all", "dev/scripts/_bench_baseline.ts"],
    baselineLabel: "plain Deno.serve",
    version: () => Promise.resolve(`Deno ${Deno.version.deno}`),
  },
  node: {
    program: "node",
    service: [`${ROOT}npm/cli.js`],
    baseline: [`${ROOT}dev/scripts/_bench_baseline_node.mjs`],
    baselineLabel: "plain node:http",
    version: async () => `Node ${await readVersion("node")}, @hono/node-server`,
  },
  bun: {
    program: "bun",
    service: [`${ROOT}npm/cli.js`],
    baseline: [`${ROOT}dev/scripts/_bench_baseline_bun.ts`],
    baselineLabel: "plain Bun.serve",
    version: async () => `Bun ${await readVersion("bun")}`,
  },
};

for (const runtime of runtimes) {
  if (!BENCHES[runtime]) {
    console.error(`Unknown --runtime "${runtime}": use deno, node, bun or all`);
    Deno.exit(2);
  }
}
if (runtimes.some((runtime) => runtime !== "deno")) {
  try {
    await Deno.stat(`${ROOT}npm/cli.js`);
  } catch {
    const build = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "dev/scripts/build_npm.ts"],
      cwd: ROOT,
    }).spawn().status;
    if (!build.success) Deno.exit(1);
  }
}

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
try {
  for (const runtime of runtimes) {
    const bench = BENCHES[runtime];
    const started: BenchProcess[] = [];
    try {
      const service = await startProcess(bench.service, {
        PORT: "0",
        HOST: "127.0.0.1",
        STUDIO_KV_PATH: `${folder}/${runtime}.kv`,
        STUDIO_LOG: "quiet", // the handler is measured, not the console
        STUDIO_RATE_LIMIT_READ: "1000000000",
      }, bench.program);
      started.push(service);
      const baseline = await startProcess(bench.baseline, { PORT: "0" }, bench.program);
      started.push(baseline);
      console.log(
        `GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, ${await bench
          .version()}`,
      );
      const [ours, plain] = await compare([
        {
          label: "studio-website handler",
          origin: service.origin,
          path: "/api/v1/health",
          pid: service.pid,
        },
        {
          label: bench.baselineLabel,
          origin: baseline.origin,
          path: "/api/v1/health",
          pid: baseline.pid,
        },
      ], { seconds, rounds, connections });
      printRatio(ours, plain, runtime === "deno" ? 85 : undefined);
    } finally {
      for (const process of started) await process.stop();
    }
  }
} finally {
  await Deno.remove(folder, { recursive: true });
}
