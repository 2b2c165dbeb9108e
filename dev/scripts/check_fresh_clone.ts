/**
 * Checks what a newcomer gets from a fresh clone: `git clone` of this repository's `HEAD` into a
 * temporary folder, then `deno run -A main.ts` there with an empty Deno cache (`DENO_DIR`) and no
 * install step. The service must answer `GET /en` with its English home page, create no
 * `node_modules` folder, and download only the packages its requests reach; the script prints
 * the time to the first page and the size of the cache it filled, and exits 1 on a failure.
 *
 * Usage: `deno task check:fresh-clone`
 *
 * @module
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const TIMEOUT_MILLISECONDS = 120_000;

const folder = await Deno.makeTempDir({ prefix: "studio-fresh-" });
const clone = `${folder}/site`;
const cache = `${folder}/deno`;

async function run(program: string, args: string[], cwd: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command(program, { args, cwd }).output();
  const text = new TextDecoder().decode(stdout);
  if (!success) {
    throw new Error(`${program} ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  }
  return text;
}

/** Bytes under `path`, or 0 when it does not exist. */
async function sizeBytes(path: string): Promise<number> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(path)) {
      const child = `${path}/${entry.name}`;
      if (entry.isDirectory) total += await sizeBytes(child);
      else if (entry.isFile) total += (await Deno.stat(child)).size;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return total;
}

/** Reads the service's output until its "Listening" line, and returns the port it names. */
async function readPort(stdout: ReadableStream<Uint8Array>): Promise<number> {
  const lines = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`The service ended before it listened: ${buffered}`);
    buffered += value;
    for (const line of buffered.split("\n")) {
      if (!line.includes('"Listening"')) continue;
      lines.releaseLock();
      return (JSON.parse(line) as { port: number }).port;
    }
  }
}

let failed = false;
const started = performance.now();
try {
  await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], ROOT);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: clone,
    env: { DENO_DIR: cache, PORT: "0", HOST: "127.0.0.1", STUDIO_KV_PATH: `${folder}/studio.kv` },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MILLISECONDS);
  try {
    const port = await readPort(child.stdout);
    const response = await fetch(`http://127.0.0.1:${port}/en`);
    const body = await response.text();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200 || !type.startsWith("text/html") || !body.includes("<html")) {
      failed = true;
      console.log(`FAIL GET /en answered ${response.status} ${type}`);
    } else {
      console.log(`ok   GET /en answered 200 ${type}, ${seconds} s after the clone`);
    }
    child.kill("SIGTERM");
    await child.status;
  } finally {
    clearTimeout(timer);
  }
  const modules = await sizeBytes(`${clone}/node_modules`);
  if (modules > 0) {
    failed = true;
    console.log(`FAIL the service created node_modules (${(modules / 2 ** 20).toFixed(1)} MB)`);
  } else {
    console.log("ok   no node_modules folder");
  }
  console.log(`     Deno cache filled: ${(await sizeBytes(cache) / 2 ** 20).toFixed(1)} MB`);
} catch (error) {
  failed = true;
  console.log(`FAIL ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await Deno.remove(folder, { recursive: true }).catch(() => {});
}
Deno.exit(failed ? 1 : 0);
