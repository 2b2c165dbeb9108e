/**
 * The longer fault run, on demand: tests/e2e/faults_test.ts (which CI runs with 2 SIGKILLs) with
 * `--kills` SIGKILLs (default 8) and `--load-ms` of load before each, waiting out the outbox's
 * 120 s delivery lease so that mail a killed process was sending must arrive as well.
 *
 * Usage: `deno task faults [--kills 8] [--load-ms 4000]`
 *
 * @module
 */
function readFlag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index >= 0 ? Number(Deno.args[index + 1]) : fallback;
}

const status = await new Deno.Command(Deno.execPath(), {
  args: ["test", "--allow-all", "tests/e2e/faults_test.ts"],
  cwd: new URL("../", import.meta.url).pathname,
  env: {
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    FAULT_KILLS: String(readFlag("kills", 8)),
    FAULT_LOAD_MS: String(readFlag("load-ms", 4000)),
    FAULT_WAIT_LEASE: "1",
  },
}).spawn().status;
Deno.exit(status.code);
