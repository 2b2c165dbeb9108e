/**
 * Checks what a newcomer gets from a fresh clone: `git clone` of this repository's `HEAD` into a
 * temporary folder, then `deno run -A main.ts` there with an empty Deno cache (`DENO_DIR`) and no
 * install step. The clone has no `build/` (it is not in git): the first start must build it,
 * say so in its log ("Building") and answer `GET /en` with the English home page within 120 s of
 * the clone, creating no `node_modules` folder. Then an edit of `lib/` and of `routes/` must show
 * at the next `deno run -A main.ts`, with no build step, its `/en` answered within 5 s. The
 * script prints the times and the size of the cache filled, and exits 1 on a failure.
 *
 * Usage: `deno task check:fresh-clone`
 *
 * @module
 */
const ROOT = new URL("../", import.meta.url).pathname;
/** The first start builds `build/` and answers `/en` within this (ms). */
const FIRST_START_MILLISECONDS = 120_000;
/** A later start, with `build/` there, answers `/en` within this (ms). */
const LATER_START_MILLISECONDS = 5_000;

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

/**
 * Reads the service's output until its "Listening" line, and returns the port it names and the
 * lines before it.
 */
async function readPort(
  stdout: ReadableStream<Uint8Array>,
): Promise<{ port: number; log: string }> {
  const lines = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (true) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`The service ended before it listened: ${buffered}`);
    buffered += value;
    for (const line of buffered.split("\n")) {
      if (!line.includes('"Listening"')) continue;
      lines.releaseLock();
      return { port: (JSON.parse(line) as { port: number }).port, log: buffered };
    }
  }
}

let failed = false;

/**
 * Starts `deno run -A main.ts` in the clone, asks for `/en` and stops the service; fails when
 * the page is not the home page or comes later than `limitMilliseconds` after `since`.
 *
 * @returns The service's log up to "Listening", and the `/en` response's headers.
 */
async function startAndAskForHome(
  name: string,
  since: number,
  limitMilliseconds: number,
): Promise<{ log: string; headers: Headers }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: clone,
    env: { DENO_DIR: cache, PORT: "0", HOST: "127.0.0.1", STUDIO_KV_PATH: `${folder}/studio.kv` },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMilliseconds + 10_000);
  try {
    const { port, log } = await readPort(child.stdout);
    const response = await fetch(`http://127.0.0.1:${port}/en`);
    const body = await response.text();
    const elapsed = performance.now() - since;
    const seconds = (elapsed / 1000).toFixed(1);
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200 || !type.startsWith("text/html") || !body.includes("<html")) {
      failed = true;
      console.log(`FAIL ${name}: GET /en answered ${response.status} ${type}`);
    } else if (elapsed > limitMilliseconds) {
      failed = true;
      console.log(
        `FAIL ${name}: GET /en answered ${seconds} s after it began (at most ${
          limitMilliseconds / 1000
        } s)`,
      );
    } else {
      console.log(`ok   ${name}: GET /en answered 200 ${type}, ${seconds} s after it began`);
    }
    child.kill("SIGTERM");
    await child.status;
    return { log, headers: response.headers };
  } finally {
    clearTimeout(timer);
  }
}

/** Edits a source file of the clone: replaces `from` (which must be there) with `to`. */
async function edit(path: string, from: string, to: string): Promise<void> {
  const text = await Deno.readTextFile(`${clone}/${path}`);
  if (!text.includes(from)) throw new Error(`${path} no longer holds ${JSON.stringify(from)}`);
  await Deno.writeTextFile(`${clone}/${path}`, text.replace(from, to));
}

try {
  const started = performance.now();
  await run("git", ["clone", "--quiet", "--no-hardlinks", ROOT, clone], ROOT);
  const first = await startAndAskForHome("first start", started, FIRST_START_MILLISECONDS);
  if (first.log.includes('"Building"')) console.log("ok   the first start said it builds build/");
  else {
    failed = true;
    console.log("FAIL the first start did not log that it builds build/");
  }
  // An edit of lib/ and of routes/, seen at the next start without a build step.
  await edit(
    "lib/http/security_headers.ts",
    "\nexport ",
    '\nexport const EDITED = "lib";\nexport ',
  );
  await edit(
    "routes/mod.ts",
    "\nimport ",
    '\nimport { EDITED } from "../lib/http/security_headers.ts";\n' +
      'console.log(JSON.stringify({ level: "info", message: "Edited", lib: EDITED, routes: true }));' +
      "\nimport ",
  );
  const later = await startAndAskForHome(
    "later start",
    performance.now(),
    LATER_START_MILLISECONDS,
  );
  if (later.log.includes('"Building"')) {
    failed = true;
    console.log("FAIL a later start built again");
  }
  const edited = later.log.includes('"message":"Edited","lib":"lib","routes":true');
  console.log(
    edited
      ? "ok   the edit of lib/ and routes/ showed at the next start, with no build step"
      : "FAIL the edit of lib/ and routes/ did not show at the next start",
  );
  if (!edited) failed = true;
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
