/**
 * Benchmark: cold start, measured as the time from launching a process to its first 200: the
 * service's first `GET /api/v1/health`, and its first page (`/en`, asked for as a browser does:
 * negotiated and compressed), each from a fresh process, next to a plain server of the same
 * runtime answering its first health check (the baselines of scripts/bench_health.ts),
 * alternately for several rounds; prints the medians and their ratios to the plain server. The
 * service runs as a deployment runs it (`deno run --config build/server/config.json
 * build/server/main.js`, after `deno task build`,
 * which this runs first), with its request log (to /dev/null); `--entry main.ts` times the
 * sources as a checkout runs them instead. Goals on Deno: health within 1.5×, the first page within 2× the bare
 * `Deno.serve` launched with no project configuration (`--no-config`: a bare server does not read
 * the project's `deno.json`, workspace and lock); the ratios to the same server launched with the
 * project's configuration are printed too.
 *
 * - Deno: `build/server/main.js` (or `--entry`) against scripts/_bench_baseline.ts, with and
 *   without the configuration.
 * - Node and Bun: the npm package's executable (`npm/adapters/npm/cli.js`, built when missing) against
 *   scripts/_bench_baseline_node.mjs and scripts/_bench_baseline_bun.ts.
 *
 * Usage: `deno task bench:start [--runtime deno|node|bun|all] [--rounds 7] [--path /en]
 * [--entry build/server/main.js]`
 *
 * @module
 */
import { readFlag } from "./_bench_support.ts";
import { runBuild } from "./build.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const rounds = Number(readFlag("--rounds") ?? 7);
const chosen = readFlag("--runtime") ?? "deno";
const runtimes = chosen === "all" ? ["deno", "node", "bun"] : [chosen];
/** The page of a cold start: the English home page, as a browser asks for it. */
const PAGE_PATH = readFlag("--path") ?? "/en";
/** What Deno runs: the deployment's bundle, or the sources' entry (`main.ts`). */
const DENO_ENTRY = readFlag("--entry") ?? "build/server/main.js";
/** The bundle runs with its own configuration, as the README's Deploy section runs it. */
const DENO_CONFIG = DENO_ENTRY.startsWith("build/server/")
  ? ["--config", "build/server/config.json"]
  : [];

/**
 * Each runtime's launches: the service, the plain server, and on Deno the plain server without
 * the project's configuration (`bare`), which the goals compare with.
 */
const STARTS: Record<
  string,
  { program: string; service: string[]; baseline: string[]; bare?: string[] }
> = {
  deno: {
    program: Deno.execPath(),
    service: ["run", "--allow-all", ...DENO_CONFIG, DENO_ENTRY],
    baseline: ["run", "--allow-all", "scripts/_bench_baseline.ts"],
    bare: ["run", "--allow-all", "--no-config", "scripts/_bench_baseline.ts"],
  },
  node: {
    program: "node",
    service: [`${ROOT}npm/adapters/npm/cli.js`],
    baseline: [`${ROOT}scripts/_bench_baseline_node.mjs`],
  },
  bun: {
    program: "bun",
    service: [`${ROOT}npm/adapters/npm/cli.js`],
    baseline: [`${ROOT}scripts/_bench_baseline_bun.ts`],
  },
};

/** A loopback port free at the moment of asking. */
function findFreePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** What a browser sends for a page: the first page's answer is negotiated and compressed. */
const PAGE_HEADERS = {
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Encoding": "gzip, deflate, br, zstd",
  "Accept-Language": "en",
};

/** Milliseconds from spawning `args` to its first 200 on `path`. */
async function timeStart(
  program: string,
  args: string[],
  folder: string,
  path = "/api/v1/health",
): Promise<number> {
  const port = findFreePort();
  const started = performance.now();
  const child = new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: {
      PORT: String(port),
      HOST: "127.0.0.1",
      STUDIO_KV_PATH: `${folder}/start-${port}.kv`,
      NO_COLOR: "1",
    },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    for (;;) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          headers: path.startsWith("/api/") ? {} : PAGE_HEADERS,
        });
        await response.arrayBuffer();
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

if (runtimes.includes("deno")) {
  // What a deployment runs is made by `deno task build`: bring it up to date first.
  if (!await runBuild([], "null")) Deno.exit(1);
}

const folder = await Deno.makeTempDir({ prefix: "studio-bench-start-" });
try {
  for (const runtime of runtimes) {
    const start = STARTS[runtime];
    if (!start) throw new Error(`Unknown --runtime "${runtime}": use deno, node, bun or all`);
    const health: number[] = [];
    const page: number[] = [];
    const baseline: number[] = [];
    const bareBaseline: number[] = [];
    // One warm-up each (module caches), then alternate so drift hits all alike.
    await timeStart(start.program, start.service, folder);
    await timeStart(start.program, start.service, folder, PAGE_PATH);
    await timeStart(start.program, start.baseline, folder);
    if (start.bare) await timeStart(start.program, start.bare, folder);
    for (let round = 0; round < rounds; round++) {
      health.push(await timeStart(start.program, start.service, folder));
      page.push(await timeStart(start.program, start.service, folder, PAGE_PATH));
      baseline.push(await timeStart(start.program, start.baseline, folder));
      if (start.bare) bareBaseline.push(await timeStart(start.program, start.bare, folder));
    }
    const configured = median(baseline);
    // The goals compare with the bare server where there is one (Deno), else with the plain one.
    const bare = start.bare ? median(bareBaseline) : configured;
    const format = (values: number[]) => values.map((value) => value.toFixed(0)).join(", ");
    console.log(
      `Launch to first 200, ${runtime}${runtime === "deno" ? ` (${DENO_ENTRY})` : ""}, ${rounds} ` +
        "rounds, the service as it starts (log on)",
    );
    if (start.bare) {
      console.log(
        `  bare server, no config  ${bare.toFixed(0)} ms median (${format(bareBaseline)})`,
      );
    }
    console.log(
      `  plain server, health    ${configured.toFixed(0)} ms median (${format(baseline)})`,
    );
    for (
      const [label, values, goal] of [
        ["studio-website, health", health, 1.5],
        [`studio-website, ${PAGE_PATH}`, page, 2],
      ] as const
    ) {
      const ours = median(values);
      const ratio = ours / bare;
      const verdict = runtime !== "deno"
        ? ""
        : ratio > goal
        ? ` (goal ≤ ${goal}× the bare server: NOT MET)`
        : ` (goal ≤ ${goal}× the bare server)`;
      const also = start.bare ? `; ${(ours / configured).toFixed(2)}× the plain server` : "";
      console.log(
        `  ${label.padEnd(23)} ${ours.toFixed(0)} ms median (${format(values)}): ${
          ratio.toFixed(2)
        }×${verdict}${also}`,
      );
    }
  }
} finally {
  await Deno.remove(folder, { recursive: true });
}
