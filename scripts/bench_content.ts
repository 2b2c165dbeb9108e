/**
 * Benchmark: the site's content next to the health probe, through the real service (main.ts,
 * read quota raised so health is never refused) in the same run, measured with `wrk` (Debian
 * package) on loopback: a page as HTML, the same page as Markdown by `Accept` negotiation and at
 * its `/md/` twin, and `GET /api/v1/health`. Targets are measured alternately for several rounds
 * and the medians compared; the goal is that a content response costs no more than twice a
 * health response (≥ 50% of its throughput, or of its server CPU time per request).
 *
 * Usage: `deno task bench:content [--seconds 10] [--rounds 3] [--connections 50] [--path /servicos]`
 *
 * @module
 */
import { compare, printRatio, readFlag, startProcess } from "./_bench_support.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);
const page = readFlag("--path") ?? "/servicos";

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const markdownScript = `${folder}/accept_markdown.lua`;
await Deno.writeTextFile(markdownScript, 'wrk.headers["Accept"] = "text/markdown"\n');
const service = await startProcess(["run", "--allow-all", "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/bench.kv`,
  STUDIO_LOG: "quiet", // the handler is measured, not the console
  STUDIO_RATE_LIMIT_READ: "1000000000",
});
try {
  const variants: Record<string, string>[] = [{}, { Accept: "text/markdown" }];
  const sizes: number[] = [];
  for (const headers of variants) {
    const response = await fetch(service.origin + page, { headers });
    sizes.push((await response.arrayBuffer()).byteLength);
  }
  console.log(
    `GET ${page} (HTML ${sizes[0]} B, Markdown ${sizes[1]} B) next to GET /api/v1/health, ` +
      `wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}`,
  );
  const target = (label: string, path: string, script?: string) => ({
    label,
    origin: service.origin,
    path,
    script,
    pid: service.pid,
  });
  const [health, html, markdown, twin] = await compare([
    target("GET /api/v1/health", "/api/v1/health"),
    target(`GET ${page} (HTML)`, page),
    target(`GET ${page} (Accept: Markdown)`, page, markdownScript),
    target(`GET /md${page}`, `/md${page}`),
  ], { seconds, rounds, connections });
  for (
    const [label, measurement] of [["HTML", html], ["Markdown", markdown], ["/md/", twin]] as const
  ) {
    console.log(`${label} against health:`);
    printRatio(measurement, health, 50);
  }
} finally {
  await service.stop();
  await Deno.remove(folder, { recursive: true });
}
