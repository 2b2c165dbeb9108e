/**
 * Benchmark: `GET /api/v1/health` through the real service (main.ts, read quota raised) next to
 * a plain `Deno.serve` baseline doing the same work (scripts/_bench_baseline.ts), both measured
 * with `wrk` (Debian package) on loopback in the same run. Servers run on core 0 and wrk on core
 * 1 (with `taskset`, where present) so they do not compete; the two are measured alternately for
 * several rounds and the medians compared. Prints both throughputs and the ratio (target ≥ 85%).
 *
 * Usage: `deno task bench:health [--seconds 10] [--rounds 3] [--connections 50]`
 *
 * @module
 */
import { compare, printRatio, readFlag, startProcess } from "./_bench_support.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const service = await startProcess(["run", "--allow-all", "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/bench.kv`,
  STUDIO_RATE_LIMIT_READ: "1000000000",
});
const baseline = await startProcess(["run", "--allow-all", "scripts/_bench_baseline.ts"], {
  PORT: "0",
});
try {
  console.log(
    `GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}`,
  );
  const [ours, plain] = await compare([
    {
      label: "studio-website handler",
      origin: service.origin,
      path: "/api/v1/health",
      pid: service.pid,
    },
    {
      label: "plain Deno.serve",
      origin: baseline.origin,
      path: "/api/v1/health",
      pid: baseline.pid,
    },
  ], { seconds, rounds, connections });
  printRatio(ours, plain, 85);
} finally {
  await service.stop();
  await baseline.stop();
  await Deno.remove(folder, { recursive: true });
}
