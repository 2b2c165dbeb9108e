/**
 * Benchmark: `GET /api/v1/health` through the real service (read quota raised) next to a plain
 * server of the same runtime doing the same work, all measured with `wrk` (Debian package) on
 * loopback in the same run, on each runtime. The service runs twice: as `deno task start` runs
 * it, with the request log on (the default, `STUDIO_LOG=info`), and with `STUDIO_LOG=quiet`.
 * Every server's standard output goes to a file, as a deployment that keeps its log in a file
 * (or hands it to a collector through a pipe) runs it; the run ends by counting the lines the
 * service logged, "Stopped" last, after its SIGTERM.
 *
 * - Deno: `main.ts` (`Deno.serve`, with the start task's permissions)
 *   against scripts/_bench_baseline.ts (plain `Deno.serve`); targets: log on ≥ 90%, off ≥ 90%;
 *   then both again with OpenTelemetry on (`OTEL_DENO=true`, exporting to a local OTLP/HTTP
 *   receiver that answers every export 200): the service with its log on ≥ 80% of the plain
 *   server with telemetry on.
 * - Node: the npm package's executable (`@hono/node-server`) against
 *   scripts/_bench_baseline_node.mjs (plain `node:http`); target: log on ≥ 90%.
 * - Bun: the npm package's executable (`Bun.serve`) against scripts/_bench_baseline_bun.ts
 *   (plain `Bun.serve`); target: log on ≥ 90%.
 *
 * Servers run on core 0 and wrk on core 1 (with `taskset`, where present) so they do not
 * compete; the three are measured alternately for several rounds and the medians compared, by
 * throughput and by the server's CPU time per request (the steadier figure on a shared machine).
 * Node and Bun run the built package in npm/ (built first when missing: `deno task build:npm`).
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
  /**
   * The targets, in percent of the plain server's throughput, with the log on and off, and with
   * the log and OpenTelemetry on (against the plain server with OpenTelemetry on; Deno only).
   */
  targets: { logOn: number; logOff?: number; telemetryOn?: number };
  version(): Promise<string>;
}

const ROOT = new URL("../", import.meta.url).pathname;

async function readVersion(program: string): Promise<string> {
  const output = await new Deno.Command(program, { args: ["--version"], stdout: "piped" }).output();
  return new TextDecoder().decode(output.stdout).trim();
}

const BENCHES: Record<string, RuntimeBench> = {
  deno: {
    program: Deno.execPath(),
    // As `deno task start` runs it.
    service: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-sys",
      "main.ts",
    ],
    baseline: ["run", "--allow-all", "scripts/_bench_baseline.ts"],
    baselineLabel: "plain Deno.serve",
    targets: { logOn: 90, logOff: 90, telemetryOn: 80 },
    version: () => Promise.resolve(`Deno ${Deno.version.deno}`),
  },
  node: {
    program: "node",
    service: [`${ROOT}npm/adapters/npm/cli.js`],
    baseline: [`${ROOT}scripts/_bench_baseline_node.mjs`],
    baselineLabel: "plain node:http",
    targets: { logOn: 90 },
    version: async () => `Node ${await readVersion("node")}, @hono/node-server`,
  },
  bun: {
    program: "bun",
    service: [`${ROOT}npm/adapters/npm/cli.js`],
    baseline: [`${ROOT}scripts/_bench_baseline_bun.ts`],
    baselineLabel: "plain Bun.serve",
    targets: { logOn: 90 },
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
    await Deno.stat(`${ROOT}npm/adapters/npm/cli.js`);
  } catch {
    const build = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "scripts/build_npm.ts"],
      cwd: ROOT,
    }).spawn().status;
    if (!build.success) Deno.exit(1);
  }
}

/** Counts the lines of a file, and reads its last line. */
async function readLineCount(path: string): Promise<{ lines: number; last: string }> {
  using file = await Deno.open(path);
  let lines = 0;
  let tail = new Uint8Array();
  for await (const chunk of file.readable) {
    for (const byte of chunk) if (byte === 10) lines++;
    tail = chunk;
  }
  const text = new TextDecoder().decode(tail).trimEnd();
  return { lines, last: text.slice(text.lastIndexOf("\n") + 1) };
}

/**
 * A local OTLP/HTTP receiver (`/v1/traces`, `/v1/metrics`, `/v1/logs`): it reads each export and
 * answers 200 with an empty protobuf message, as a collector that accepted everything does.
 */
function startOtlpReceiver(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    await request.arrayBuffer();
    return new Response(new Uint8Array(), {
      headers: { "Content-Type": "application/x-protobuf" },
    });
  });
}

/**
 * Health with the log and OpenTelemetry on (`OTEL_DENO=true`, to a local OTLP receiver) against
 * the plain server with OpenTelemetry on: what tracing every request costs the service beyond
 * what it costs any `Deno.serve`.
 */
async function compareWithTelemetry(bench: RuntimeBench, env: Record<string, string>) {
  const receiver = startOtlpReceiver();
  const otel = {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.addr.port}`,
    OTEL_SERVICE_NAME: "studio-website-bench",
  };
  const started: BenchProcess[] = [];
  try {
    const service = await startProcess(bench.service, { ...env, ...otel }, bench.program, {
      stdoutFile: `${env.STUDIO_KV_PATH}.log.jsonl`,
    });
    started.push(service);
    const baseline = await startProcess(bench.baseline, { PORT: "0", ...otel }, bench.program, {
      stdoutFile: `${env.STUDIO_KV_PATH}.baseline.jsonl`,
    });
    started.push(baseline);
    console.log(`  with OpenTelemetry on (OTEL_DENO=true, OTLP/HTTP to a local receiver):`);
    const path = "/api/v1/health";
    const [on, plain] = await compare([
      { label: "service, log on, OTel on", origin: service.origin, path, pid: service.pid },
      {
        label: `${bench.baselineLabel}, OTel on`,
        origin: baseline.origin,
        path,
        pid: baseline.pid,
      },
    ], { seconds, rounds, connections });
    console.log(`  log and OpenTelemetry on against ${bench.baselineLabel} with OpenTelemetry on:`);
    printRatio(on, plain, bench.targets.telemetryOn);
  } finally {
    for (const process of started) await process.stop();
    await receiver.shutdown();
  }
}

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
try {
  for (const runtime of runtimes) {
    const bench = BENCHES[runtime];
    const started: BenchProcess[] = [];
    const logFile = `${folder}/${runtime}-log-on.jsonl`;
    try {
      const env = {
        PORT: "0",
        HOST: "127.0.0.1",
        STUDIO_RATE_LIMIT_READ: "1000000000",
      };
      const logOn = await startProcess(
        bench.service,
        { ...env, STUDIO_KV_PATH: `${folder}/${runtime}-on.kv` },
        bench.program,
        { stdoutFile: logFile },
      );
      started.push(logOn);
      const logOff = await startProcess(
        bench.service,
        { ...env, STUDIO_KV_PATH: `${folder}/${runtime}-off.kv`, STUDIO_LOG: "quiet" },
        bench.program,
        { stdoutFile: `${folder}/${runtime}-log-off.jsonl` },
      );
      started.push(logOff);
      const baseline = await startProcess(bench.baseline, { PORT: "0" }, bench.program, {
        stdoutFile: `${folder}/${runtime}-baseline.jsonl`,
      });
      started.push(baseline);
      console.log(
        `GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, ${await bench
          .version()}; each server's standard output to a file`,
      );
      const path = "/api/v1/health";
      const [on, off, plain] = await compare([
        { label: "service, log on (default)", origin: logOn.origin, path, pid: logOn.pid },
        { label: "service, STUDIO_LOG=quiet", origin: logOff.origin, path, pid: logOff.pid },
        { label: bench.baselineLabel, origin: baseline.origin, path, pid: baseline.pid },
      ], { seconds, rounds, connections });
      console.log(`  log on against ${bench.baselineLabel}:`);
      printRatio(on, plain, bench.targets.logOn);
      console.log(`  log off against ${bench.baselineLabel}:`);
      printRatio(off, plain, bench.targets.logOff);
      await logOn.stop();
      const { lines, last } = await readLineCount(logFile);
      // Besides the requests: "Listening" first and "Stopped" last.
      console.log(`  log on: ${lines - 2} request lines written, the last line: ${last}`);
      if (bench.targets.telemetryOn) {
        await compareWithTelemetry(bench, {
          ...env,
          STUDIO_KV_PATH: `${folder}/${runtime}-otel.kv`,
        });
      }
    } finally {
      for (const process of started) await process.stop();
    }
  }
} finally {
  await Deno.remove(folder, { recursive: true });
}
