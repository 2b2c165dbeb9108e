/**
 * One KV file shared by Deno and Node (README, Runtimes and stores): what the service stores on
 * one runtime is read, exported and delivered on the other, both ways. Runs in the Node run,
 * against the npm package (its service, its `inbox` command and its KV adapter), and spawns Deno
 * from source on the same file (`deno run main.ts`, `deno task inbox`, `deno eval`), so it needs
 * `deno` on the PATH, as CI has it. Deno 2.9 writes V8 serialisation format 16, which Node 20
 * reads only through the adapter; Node's `v8.serialize` writes typed arrays in a form Deno does
 * not read, which the adapter does not use.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { KvU64, openKv } from "@deno/kv";
import { RUNTIME, withKvFile } from "../_kv.ts";
import type { KvKey, Store } from "../../lib/store/store.ts";
import { type RunningServer, SERVER_FOLDER, startServer } from "./_server.ts";
import { startSmtpServer, type TestSmtpServer } from "../_smtp.ts";
import { buildBookingBody } from "../_booking.ts";
import { findFreeStarts } from "./_studio.ts";

const NODE_ONLY = {
  skip: RUNTIME === "deno"
    ? "needs the npm build: runs in the Node run, which spawns Deno from source"
    : RUNTIME === "bun"
    ? "Bun writes JavaScriptCore's format: its KV files are not shared (README)"
    : false,
};

const BASE_URL = "https://studio.example";
const MESSAGE = "Olá! Queremos um site novo — com loja ✓";

/** The repository (npm-tests/ links its deno.json), where Deno runs from source. */
function findRepository(): string {
  return dirname(realpathSync(join(SERVER_FOLDER, "deno.json")));
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `program` to its end (60 s at most) and returns its exit code and output. */
async function run(
  program: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Finished> {
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => stdout += chunk);
  child.stderr.on("data", (chunk) => stderr += chunk);
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const [code] = await once(child, "exit");
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Starts the service with `deno run main.ts` from source on `env`'s KV file. */
async function startDenoService(env: Record<string, string>): Promise<RunningServer> {
  const child = spawn("deno", ["run", "--allow-all", "--quiet", "main.ts"], {
    cwd: findRepository(),
    env: { ...process.env, NO_COLOR: "1", PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Deno did not start:\n${output}`)), 60_000);
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const match = /"message":"Listening".*?"port":(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on("data", (chunk) => output += chunk);
    child.on("error", (error) => reject(new Error(`deno (on the PATH) did not run: ${error}`)));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Deno exited with ${code}:\n${output}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function buildEnv(kvPath: string, smtp?: TestSmtpServer): Record<string, string> {
  return {
    STUDIO_KV_PATH: kvPath,
    STUDIO_BASE_URL: BASE_URL,
    STUDIO_LOG: "quiet",
    ...smtp ? { STUDIO_SMTP_URL: smtp.url } : {},
  };
}

/** Sends an inquiry and books the first free slot of next month; returns the slot's start. */
async function storeInquiryAndBooking(server: RunningServer): Promise<string> {
  const contact = await fetch(`${server.origin}/api/v1/contact`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ Name: "Rita Lopes", Email: "rita@example.pt", Message: MESSAGE }),
  });
  assert.equal(contact.status, 200, await contact.text());
  const [start] = await findFreeStarts(server.origin);
  const booking = await fetch(`${server.origin}/api/v1/booking`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(buildBookingBody(start)),
  });
  assert.equal(booking.status, 201, await booking.text());
  return start;
}

async function listValues(kv: Store, prefix: KvKey): Promise<unknown[]> {
  const values = [];
  for await (const entry of kv.list({ prefix })) values.push(entry.value);
  return values;
}

/** Asserts the stored records through the package's KV adapter, on Node. */
async function assertRecordsOnNode(kvPath: string, start: string): Promise<void> {
  await withKvFile(kvPath, async (kv) => {
    const inquiries = await listValues(kv, ["inquiry"]) as Array<{ fields: object }>;
    assert.deepEqual(inquiries.map((inquiry) => inquiry.fields), [
      { Name: "Rita Lopes", Email: "rita@example.pt", Message: MESSAGE },
    ]);
    const bookings = await listValues(kv, ["booking"]) as Array<Record<string, unknown>>;
    assert.deepEqual(
      bookings.map(({ start, status, name, email, company, locale }) => ({
        start,
        status,
        name,
        email,
        company,
        locale,
      })),
      [{
        start,
        status: "accepted",
        name: "Ana Sousa",
        email: "ana@example.pt",
        company: "Cerâmica Lda",
        locale: "pt",
      }],
    );
    const outbox = await listValues(kv, ["outbox"]) as Array<
      { topic: string; mail: { text: Uint8Array; calendar?: { content: Uint8Array } } }
    >;
    const texts = outbox.map((entry) => new TextDecoder().decode(entry.mail.text));
    assert.equal(outbox.length, 3, "the inquiry's e-mail and the booking's two wait");
    assert.ok(texts.some((text) => text.includes(MESSAGE)), "the inquiry's e-mail, in UTF-8");
    assert.equal(texts.filter((text) => text.includes("Ana Sousa")).length, 2);
    const invites = outbox.flatMap((entry) => entry.mail.calendar ?? []);
    assert.ok(invites.length >= 1, "the booking's invite");
    for (const invite of invites) {
      assert.match(new TextDecoder().decode(invite.content), /^BEGIN:VCALENDAR\r\n/);
    }
  });
}

/** The operator's report on each runtime: the same records, listed the same. */
async function assertInboxes(kvPath: string, delivery: "pending" | "sent"): Promise<void> {
  const env = { STUDIO_KV_PATH: kvPath };
  const reports = {
    node: await run(process.execPath, ["adapters/npm/cli.js", "inbox"], {
      cwd: SERVER_FOLDER,
      env,
    }),
    deno: await run("deno", ["task", "--quiet", "inbox"], { cwd: findRepository(), env }),
  };
  for (const [runtime, report] of Object.entries(reports)) {
    assert.equal(report.code, 0, `${runtime} inbox: ${report.stderr}`);
    assert.equal(report.stderr, "", `${runtime} inbox printed no error`);
    for (
      const line of [
        "from:     Rita Lopes <rita@example.pt>",
        `message:  ${MESSAGE}`,
        `delivery: ${delivery}`,
        "with:     Ana Sousa <ana@example.pt>, Cerâmica Lda",
        "1 inquiry",
        "1 booking",
      ]
    ) {
      assert.ok(
        report.stdout.includes(line),
        `${runtime} inbox lists "${line}":\n${report.stdout}`,
      );
    }
  }
  assert.equal(reports.node.stdout, reports.deno.stdout, "both runtimes list the same");
}

/** Each runtime's `inbox export <email>`: the same JSON, but for the time of the export. */
async function assertExportsEqual(kvPath: string): Promise<void> {
  const env = { STUDIO_KV_PATH: kvPath };
  for (const email of ["rita@example.pt", "ana@example.pt"]) {
    const args = ["inbox", "export", email];
    const node = await run(process.execPath, ["adapters/npm/cli.js", ...args], {
      cwd: SERVER_FOLDER,
      env,
    });
    const deno = await run("deno", ["task", "--quiet", ...args], { cwd: findRepository(), env });
    assert.equal(node.code, 0, `node export: ${node.stderr}`);
    assert.equal(deno.code, 0, `deno export: ${deno.stderr}`);
    const read = (text: string) => ({ ...JSON.parse(text), exportedAt: undefined });
    const exported = read(node.stdout);
    assert.equal(exported.address, email);
    assert.equal(exported.inquiries.length + exported.bookings.length, 1, `${email}'s record`);
    assert.deepEqual(exported, read(deno.stdout), `${email}: both runtimes export the same`);
  }
}

/** Starts `start` with SMTP on the file, waits for the three e-mails, and checks them. */
async function assertDelivered(
  kvPath: string,
  start: (env: Record<string, string>) => Promise<RunningServer>,
): Promise<void> {
  const smtp = await startSmtpServer();
  const server = await start(buildEnv(kvPath, smtp));
  try {
    const mails = await smtp.waitFor(3, 30_000);
    const texts = mails.map((mail) => mail.parsed.text ?? "");
    assert.ok(texts.some((text) => text.includes(MESSAGE)), "the inquiry's e-mail");
    const toAna = mails.filter((mail) => mail.envelopeTo.includes("ana@example.pt"));
    assert.equal(toAna.length, 1, "Ana's confirmation");
    assert.match(toAna[0].parsed.subject ?? "", /^Conversa marcada: /);
    assert.ok(toAna[0].raw.includes("BEGIN:VCALENDAR"), "with the invite");
  } finally {
    await server.stop();
    await smtp.stop();
  }
  await withKvFile(kvPath, async (kv) => {
    assert.deepEqual(await listValues(kv, ["outbox"]), [], "nothing left to send");
  });
}

test(
  "a Deno service's inquiry and booking are read, exported and delivered by Node, then read by Deno again",
  NODE_ONLY,
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-share-"));
    const kvPath = join(folder, "studio.kv");
    try {
      const deno = await startDenoService(buildEnv(kvPath));
      let start: string;
      try {
        start = await storeInquiryAndBooking(deno);
      } finally {
        await deno.stop();
      }
      await assertRecordsOnNode(kvPath, start);
      await assertInboxes(kvPath, "pending");
      await assertExportsEqual(kvPath);
      // Node's service delivers the mail Deno stored and writes the delivery records Deno then reads.
      await assertDelivered(kvPath, startServer);
      await assertInboxes(kvPath, "sent");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

test(
  "a Node service's inquiry and booking are read, exported and delivered by Deno, then read by Node again",
  NODE_ONLY,
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-share-"));
    const kvPath = join(folder, "studio.kv");
    try {
      const node = await startServer(buildEnv(kvPath));
      let start: string;
      try {
        start = await storeInquiryAndBooking(node);
      } finally {
        await node.stop();
      }
      await assertInboxes(kvPath, "pending");
      await assertExportsEqual(kvPath);
      // Deno's service delivers the mail Node stored (its bodies are Uint8Arrays).
      await assertDelivered(kvPath, startDenoService);
      await assertRecordsOnNodeAfterDelivery(kvPath, start);
      await assertInboxes(kvPath, "sent");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

/** After delivery on Deno: Node reads the records and Deno's delivery records. */
async function assertRecordsOnNodeAfterDelivery(kvPath: string, start: string): Promise<void> {
  await withKvFile(kvPath, async (kv) => {
    const bookings = await listValues(kv, ["booking"]) as Array<{ start: string; name: string }>;
    assert.deepEqual(bookings.map(({ start, name }) => ({ start, name })), [
      { start, name: "Ana Sousa" },
    ]);
    const sent = await listValues(kv, ["outbox_sent"]) as Array<{ topic: string }>;
    assert.deepEqual(sent.map((record) => record.topic).sort(), ["booking", "booking", "inquiry"]);
  });
}

/**
 * The value types of KV, built the same on both runtimes (this function's source is sent to
 * Deno). `u64` makes a `KvU64`, which each runtime spells its own way.
 */
function buildValues(u64: (value: bigint) => unknown): Record<string, unknown> {
  return {
    ascii: "hello",
    latin1: "Olá café",
    twoByte: "Conversa — ✓ €",
    emoji: "😀",
    integer: -42,
    double: 1.5,
    special: [NaN, -0, Infinity],
    booleans: [true, false, null, undefined],
    nested: { a: { b: [{ c: 1, d: [null, "x"] }] }, empty: {} },
    sparse: [1, , 3],
    date: new Date("2026-12-02T09:30:00.000Z"),
    bigints: [7n, -99n, 12345678901234567890123n],
    map: new Map<unknown, unknown>([["k", { v: 1 }]]),
    set: new Set<unknown>([1, "a"]),
    regexp: /a+b/giu,
    bytesInObject: { text: new TextEncoder().encode("Olá\r\n") },
    typedArrays: [new Int32Array([1, -2]), new Float64Array([1.5]), new BigInt64Array([5n])],
    dataView: new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2),
    arrayBuffer: new Uint8Array([9, 8]).buffer,
    boxed: [Object("s"), Object(3), Object(false)],
    bytes: new Uint8Array([0, 255, 10]),
    u64: u64(18446744073709551615n),
  };
}

/** A canonical text of a value, the same for equal values on both runtimes (sent to Deno). */
function describeValue(value: unknown): string {
  const walk = (item: unknown): string => {
    if (typeof item === "bigint") return `${item}n`;
    if (typeof item === "number") return Object.is(item, -0) ? "-0" : String(item);
    if (item === undefined) return "undefined";
    if (item === null || typeof item !== "object") return JSON.stringify(item);
    const type = Object.prototype.toString.call(item).slice(8, -1);
    if (item instanceof Date) return `Date(${item.toISOString()})`;
    if (item instanceof RegExp) return String(item);
    if (item instanceof DataView) return `DataView(${[...new Uint8Array(item.buffer)]})`;
    if (ArrayBuffer.isView(item)) return `${type}(${Array.from(item as Int32Array, String)})`;
    if (item instanceof ArrayBuffer) return `ArrayBuffer(${[...new Uint8Array(item)]})`;
    if (item instanceof Map) return `Map(${[...item].map(([k, v]) => `${walk(k)}=${walk(v)}`)})`;
    if (item instanceof Set) return `Set(${[...item].map(walk)})`;
    if (typeof (item as { value?: unknown }).value === "bigint") {
      return `KvU64(${(item as { value: bigint }).value})`;
    }
    if (Array.isArray(item)) {
      return `[${Array.from(item, (_, index) => index in item ? walk(item[index]) : "hole")}]`;
    }
    if (type !== "Object") return `${type}(${walk(item.valueOf())})`;
    return `{${Object.entries(item).map(([key, entry]) => `${key}:${walk(entry)}`)}}`;
  };
  return walk(value);
}

/** Runs `code` in `deno eval` with `buildValues` and `describeValue` defined; returns stdout. */
async function evalOnDeno(code: string, kvPath: string): Promise<string> {
  const source = `const buildValues = ${buildValues};\nconst describeValue = ${describeValue};\n` +
    `const kv = await Deno.openKv(${JSON.stringify(kvPath)});\n${code}\nkv.close();`;
  const result = await run("deno", ["eval", "--unstable-kv", source], { cwd: dirname(kvPath) });
  assert.equal(result.code, 0, `deno eval: ${result.stderr}`);
  return result.stdout;
}

test("every value type KV stores crosses between Deno and Node both ways", NODE_ONLY, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-share-"));
  const expected = buildValues((value) => new KvU64(value));
  try {
    const fromDeno = join(folder, "from_deno.kv");
    await evalOnDeno(
      "for (const [key, value] of Object.entries(buildValues((v) => new Deno.KvU64(v)))) " +
        "await kv.set([key], value);",
      fromDeno,
    );
    await withKvFile(fromDeno, async (kv) => {
      for (const [key, value] of Object.entries(expected)) {
        const entry = await kv.get([key]);
        assert.equal(describeValue(entry.value), describeValue(value), `${key} from Deno`);
      }
    });

    const fromNode = join(folder, "from_node.kv");
    await withKvFile(fromNode, async (kv) => {
      for (const [key, value] of Object.entries(expected)) await kv.set([key], value);
    });
    const described = JSON.parse(
      await evalOnDeno(
        "const read = {};\nfor (const key of Object.keys(buildValues(() => 0n))) " +
          "read[key] = describeValue((await kv.get([key])).value);\n" +
          "console.log(JSON.stringify(read));",
        fromNode,
      ),
    );
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(described[key], describeValue(value), `${key} from Node`);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test(
  "Node still reads a file an earlier build wrote with v8.serialize (typed arrays as Node host objects)",
  NODE_ONLY,
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-share-"));
    const kvPath = join(folder, "studio.kv");
    const entry = { id: "01", mail: { subject: "Olá", text: new TextEncoder().encode("Olá\n") } };
    try {
      const earlier = await openKv(kvPath); // @deno/kv's own codec: node:v8's serialize
      await earlier.set(["outbox", "01"], entry);
      earlier.close();
      await withKvFile(kvPath, async (kv) => {
        const read = await kv.get<typeof entry>(["outbox", "01"]);
        assert.equal(read.value?.mail.subject, "Olá");
        assert.equal(new TextDecoder().decode(read.value?.mail.text), "Olá\n");
      });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
);

/** A file holding one inquiry of raw value bytes, as another runtime would have written it. */
async function writeRawInquiry(kvPath: string, bytes: Uint8Array): Promise<void> {
  const other = await openKv(kvPath, { encodeV8: () => bytes, decodeV8: () => undefined });
  await other.set(["inquiry", "01"], "placeholder");
  other.close();
}

test(
  "a value this runtime cannot read is refused with the writer named, by the adapter and by the inbox command",
  {
    skip: RUNTIME === "deno" && "the package's KV adapter (Node and Bun runs)",
  },
  async () => {
    const folder = mkdtempSync(join(tmpdir(), "studio-share-"));
    const kvPath = join(folder, "studio.kv");
    // `"x"` as Bun (JavaScriptCore) writes it, and in V8's format 15 and a future 17.
    const jsc = new Uint8Array([14, 0, 0, 0, 2, 1, 0, 0, 128, 120]);
    const v8 = (version: number) => new Uint8Array([0xff, version, 0x22, 1, 0x78]);
    const cases = RUNTIME === "bun"
      ? [{
        bytes: v8(15),
        refusal: /in V8's format: Deno or Node wrote it, and Bun cannot read it/,
      }]
      : [
        { bytes: jsc, refusal: /not in V8's format: Bun wrote it/ },
        {
          bytes: v8(17),
          refusal: /in V8 serialisation format 17, newer than Node 2\d\.[\d.]+ \(V8 /,
        },
      ];
    try {
      for (const { bytes, refusal } of cases) {
        rmSync(kvPath, { force: true });
        await writeRawInquiry(kvPath, bytes);
        await withKvFile(kvPath, async (kv) => {
          await assert.rejects(kv.get(["inquiry", "01"]), refusal);
        });
        const inbox = await run(process.execPath, ["adapters/npm/cli.js", "inbox"], {
          cwd: SERVER_FOLDER,
          env: { STUDIO_KV_PATH: kvPath },
        });
        assert.equal(inbox.code, 1);
        assert.match(inbox.stderr, refusal);
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
);
