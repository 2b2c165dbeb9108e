/**
 * Smoke test of the npm package as a user gets it: packs `npm/` (`npm pack`), installs the
 * tarball into an empty folder, type-checks a consumer against its declarations (tsc, strict,
 * `nodenext`), imports `createHandler` on Node and on Bun, and then, on each of Node and Bun,
 * starts the packaged executable (`studio-website`) with the same environment variables as
 * `deno task start` and drives it over HTTP: health, a contact inquiry delivered to a loopback
 * SMTP server, a slot listing, a booking (201, its e-mails arrive) and the same slot again (409),
 * a clean stop on SIGTERM, and `npx studio-website inbox` on the KV file it left.
 *
 * Usage: `deno task smoke:npm [--no-build]`
 *
 * @module
 */
import assert from "node:assert/strict";
import { startProcess } from "./_bench_support.ts";
import { startSmtpServer } from "../tests/_smtp.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** Runs a command to completion; exits the smoke test with its output when it fails. */
async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<string> {
  const output = await new Deno.Command(program, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    console.error(
      `${program} ${args.join(" ")} failed:\n${stdout}${new TextDecoder().decode(output.stderr)}`,
    );
    Deno.exit(1);
  }
  return stdout;
}

function step(message: string): void {
  console.log(`smoke: ${message}`);
}

if (!Deno.args.includes("--no-build")) {
  await run(Deno.execPath(), ["run", "--allow-all", "scripts/build_npm.ts"], ROOT);
}
const work = await Deno.makeTempDir({ prefix: "studio-smoke-" });
const consumer = `${work}/consumer`;
let failed = 0;
try {
  const packed = await run("npm", ["pack", "--pack-destination", work], `${ROOT}npm`);
  const tarball = `${work}/${packed.trim().split("\n").at(-1)}`;
  step(`packed ${tarball.slice(work.length + 1)}`);
  await Deno.mkdir(consumer);
  await Deno.writeTextFile(
    `${consumer}/package.json`,
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  );
  // --engine-strict: a dependency that does not support this Node fails the install, so the
  // package's `engines` stays truthful.
  await run("npm", ["install", "--no-audit", "--no-fund", "--engine-strict", tarball], consumer);
  const { name } = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
  step(`installed ${name} into an empty folder`);

  await Deno.writeTextFile(
    `${consumer}/check.ts`,
    `import { createHandler, type Handler, type HandlerOptions } from "${name}";
import { createMemoryStore } from "${name}/testing";
const options: HandlerOptions = { baseUrl: "https://studio.example", store: createMemoryStore() };
const handler: Handler = createHandler(options);
const response: Promise<Response> = handler(new Request("https://studio.example/api/v1/health"));
const now: Temporal.Instant = Temporal.Now.instant();
// @ts-expect-error: the options are typed, not any
createHandler({ baseUrl: 42 });
void response;
void now;
`,
  );
  await run("node", [
    `${ROOT}node_modules/typescript/bin/tsc`,
    "--noEmit",
    "--strict",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--target",
    "es2022",
    "--skipLibCheck",
    "check.ts",
  ], consumer);
  step("a strict TypeScript consumer type-checks against the package's declarations");

  await Deno.writeTextFile(
    `${consumer}/library.js`,
    `import { createHandler } from "${name}";
const handler = createHandler({ baseUrl: "https://studio.example" });
const response = await handler(new Request("https://studio.example/api/v1/health"));
const body = await response.json();
if (response.status !== 200 || body.status !== "ok") throw new Error(JSON.stringify(body));
console.log(response.status, body.status);
`,
  );
  for (const runtime of ["node", "bun"]) {
    await run(runtime, ["library.js"], consumer);
    step(`${runtime}: import { createHandler } from "${name}" answers /api/v1/health`);
  }

  const { version } = JSON.parse(await Deno.readTextFile(`${ROOT}npm/package.json`));
  const executable = `${consumer}/node_modules/.bin/studio-website`;
  for (const runtime of ["node", "bun"]) {
    const printed = (await run(runtime, [executable, "--version"], consumer)).trim();
    if (printed !== version) throw new Error(`--version printed "${printed}", not "${version}"`);
    const help = await run(runtime, [executable, "--help"], consumer);
    if (!help.startsWith("Usage: studio-website")) throw new Error(`--help printed: ${help}`);
    step(`${runtime}: studio-website --version and --help answer`);
  }

  for (const runtime of ["node", "bun"]) {
    try {
      await driveExecutable(runtime);
    } catch (error) {
      failed++;
      console.error(`smoke: ${runtime}: FAILED: ${error instanceof Error ? error.stack : error}`);
    }
  }
} finally {
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
const passed = 2 - failed;
console.log(`\nsmoke: ${passed} passed, ${failed} failed`);
Deno.exit(failed ? 1 : 0);

/** Starts the packaged executable under `runtime` and drives the service over HTTP. */
async function driveExecutable(runtime: string): Promise<void> {
  const smtp = await startSmtpServer();
  const kvPath = `${work}/${runtime}/studio.kv`;
  const executable = `${consumer}/node_modules/.bin/studio-website`;
  const server = await startProcess([executable], {
    PORT: "0",
    HOST: "127.0.0.1",
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: smtp.url,
    STUDIO_MAIL_FROM: "Studio <site@studio.example>",
    STUDIO_INBOX: "inbox@studio.example",
  }, runtime);
  try {
    step(`${runtime}: the executable listens on ${server.origin}`);
    const health = await fetch(`${server.origin}/api/v1/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, "ok");

    const contact = await fetch(`${server.origin}/api/v1/contact`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ Name: "Rui Quintas", Email: "rui@example.pt", Message: "Olá!" }),
    });
    assert.equal(contact.status, 200);
    assert.deepEqual(await contact.json(), { ok: true });
    const [inquiry] = await smtp.waitFor(1, 15_000);
    assert.deepEqual(inquiry.envelopeTo, ["inbox@studio.example"]);
    assert.match(inquiry.parsed.subject ?? "", /Rui Quintas/);
    step(`${runtime}: a contact inquiry reached the loopback SMTP server`);

    const month = Temporal.Now.zonedDateTimeISO("Europe/Lisbon").toPlainDate()
      .toPlainYearMonth().add({ months: 1 }).toString();
    const listing = await fetch(`${server.origin}/api/v1/booking/slots?month=${month}`);
    assert.equal(listing.status, 200);
    const slots: Record<string, Array<{ start: string }>> = (await listing.json()).slots;
    const starts = Object.values(slots).flat().map((slot) => slot.start);
    assert.ok(starts.length > 0, `${month} has free slots`);
    step(`${runtime}: ${starts.length} free slots listed for ${month}`);

    const booking = {
      start: starts[0],
      name: "Ana Sousa",
      email: "ana@example.pt",
      topic: "Um novo site",
      locale: "pt",
    };
    const booked = await fetch(`${server.origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(booking),
    });
    const bookedText = await booked.text();
    assert.equal(booked.status, 201, bookedText);
    const again = await fetch(`${server.origin}/api/v1/booking`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...booking, email: "outro@example.pt" }),
    });
    assert.equal(again.status, 409, "the same slot cannot be booked twice");
    await again.body?.cancel();
    const mails = await smtp.waitFor(3, 15_000);
    assert.ok(
      mails.some((mail) => mail.envelopeTo.includes("ana@example.pt")),
      "the attendee's e-mail arrived",
    );
    step(`${runtime}: booked ${starts[0]} (201, e-mail sent), the same slot again is 409`);
    // SIGTERM stops the service promptly even while this client keeps its connection alive.
    const stopping = Date.now();
    await server.stop();
    const seconds = (Date.now() - stopping) / 1000;
    assert.ok(seconds < 15, `stopped ${seconds} s after SIGTERM`);
    step(`${runtime}: SIGTERM stopped the service in ${seconds.toFixed(1)} s`);
  } finally {
    await server.stop();
    await smtp.stop();
  }
  // `npx` runs the executable under Node, and a KV file that Bun wrote is readable by Bun only.
  if (runtime === "node") {
    const inbox = await run("npx", ["--no-install", "studio-website", "inbox"], consumer, {
      STUDIO_KV_PATH: kvPath,
    });
    assert.match(inbox, /\n1 inquiry\n/);
    assert.match(inbox, /\n1 booking\n/);
    assert.match(inbox, /\n0 erasures\n?$/);
    step("node: `npx studio-website inbox` lists the inquiry and the booking");
  }
}
