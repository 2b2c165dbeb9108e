/**
 * The API as other developers' tools meet it: from the document the running service
 * serves, orval and hey-api generate clients without error, and Stoplight Prism, as a validating
 * proxy in front of the real server, finds no request or response violation in a pass over every
 * operation (each 2xx, and each documented error a valid request can reach: 400 for a bad month,
 * 403, 409, 429), bodies included. Each tool comes from npm through npx. Prints one line per check
 * and exits non-zero when one fails.
 *
 * Usage: `deno task check:openapi-tools`
 *
 * @module
 */
import { startServer } from "../tests/e2e/_server.ts";
import { startSmtpServer } from "../tests/_smtp.ts";
import { buildBookingBody } from "../tests/_booking.ts";

const folder = await Deno.makeTempDir({ prefix: "studio-tools-" });
const smtp = await startSmtpServer();
const server = await startServer({
  STUDIO_KV_PATH: `${folder}/studio.kv`,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_LOG: "quiet",
  STUDIO_RATE_LIMIT_WRITE: "4",
});
const document = `${folder}/openapi.json`;
await Deno.writeTextFile(document, await (await fetch(`${server.origin}/openapi.json`)).text());
let failed = 0;

async function run(name: string, args: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await new Deno.Command("npx", {
    args: ["-y", ...args],
    cwd: folder,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ok = code === 0;
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}`);
  if (!ok) console.log(new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr));
}

await run("orval 8.38.0 generates a client", [
  "orval@8.38.0",
  "--input",
  document,
  "--output",
  `${folder}/orval/client.ts`,
]);
await run("hey-api 0.99.0 generates a client", [
  "-p",
  "@hey-api/openapi-ts@0.99.0",
  "-p",
  "typescript@5.9.3",
  "openapi-ts",
  "-i",
  document,
  "-o",
  `${folder}/hey`,
]);

// Prism as a validating proxy: every answer it passes is checked against the document. It is
// installed into the temporary folder and run by Node directly (npx would not pass on the stop).
const install = await new Deno.Command("npm", {
  args: ["install", "--prefix", folder, "--no-audit", "--no-fund", "@stoplight/prism-cli@5.16.0"],
  stdout: "null",
  stderr: "null",
}).output();
if (!install.success) {
  console.log("FAIL npm could not install @stoplight/prism-cli");
  Deno.exit(1);
}
const prismPort = 40_000 + Math.floor(Math.random() * 20_000);
const prism = new Deno.Command("node", {
  args: [
    await Deno.realPath(`${folder}/node_modules/.bin/prism`),
    "proxy",
    document,
    server.origin,
    "--port",
    String(prismPort),
    "--errors",
  ],
  cwd: folder,
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).spawn();
let prismLog = "";
const decoder = new TextDecoder();
const collect = async (stream: ReadableStream<Uint8Array>) => {
  for await (const chunk of stream) prismLog += decoder.decode(chunk);
};
const collecting = Promise.all([collect(prism.stdout), collect(prism.stderr)]);
const proxy = `http://127.0.0.1:${prismPort}`;
let listening = false;
for (let attempt = 0; attempt < 240 && !listening; attempt++) {
  try {
    await (await fetch(`${proxy}/api/v1/health`, { signal: AbortSignal.timeout(2_000) })).body
      ?.cancel();
    listening = true;
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
if (!listening) {
  console.log(`FAIL Prism did not start:\n${prismLog}`);
  failed++;
}

const month = Temporal.Now.plainDateISO("Europe/Lisbon").toPlainYearMonth().add({ months: 1 });
const json = { "Content-Type": "application/json" };
const listing = await (await fetch(`${proxy}/api/v1/booking/slots?month=${month}`, {
  signal: AbortSignal.timeout(15_000),
})).json();
const [start] = Object.values(listing.slots as Record<string, Array<{ start: string }>>).flat()
  .map((slot) => slot.start);
const calls: Array<[string, string, RequestInit, number]> = [
  ["GET", "/api/v1", {}, 200],
  ["GET", "/api", {}, 200],
  ["GET", "/api/v1/health", {}, 200],
  ["GET", "/api/health", {}, 200],
  ["GET", `/api/v1/booking/slots?month=${month}`, {}, 200],
  ["GET", "/api/v1/booking/slots?month=2020-01", {}, 400],
  [
    "POST",
    "/api/v1/contact",
    {
      headers: json,
      body: JSON.stringify({ Name: "Rita Lopes", Email: "rita@example.pt", Message: "Via Prism" }),
    },
    200,
  ],
  [
    "POST",
    "/api/v1/booking",
    { headers: json, body: JSON.stringify(buildBookingBody(start)) },
    201,
  ],
  [
    "POST",
    "/api/v1/booking",
    { headers: json, body: JSON.stringify(buildBookingBody(start, { email: "b@example.pt" })) },
    409,
  ],
  [
    "POST",
    "/api/v1/booking",
    {
      headers: { ...json, Origin: "https://evil.example" },
      body: JSON.stringify(buildBookingBody(start)),
    },
    403,
  ],
  [
    "POST",
    "/api/fuel-contact",
    {
      headers: json,
      body: JSON.stringify({ Name: "Rita Lopes", Email: "rita@example.pt", Message: "Again" }),
    },
    429, // the fifth write of a quota of four
  ],
];
let answered = 0;
for (const [method, path, init, expected] of calls) {
  // The quota counts in fixed windows: when the calls straddle a window's end, the fifth write
  // opens a new window and is accepted, so a 429 is sought with at most a quota's more writes.
  const attempts = expected === 429 ? 5 : 1;
  let status = 0;
  let text = "";
  for (let attempt = 0; attempt < attempts && status !== expected; attempt++) {
    const response = await fetch(`${proxy}${path}`, {
      ...init,
      method,
      signal: AbortSignal.timeout(15_000),
    });
    status = response.status;
    text = await response.text();
    answered++;
  }
  if (status !== expected) {
    failed++;
    console.log(`FAIL ${method} ${path}: ${status}, expected ${expected}: ${text}`);
  }
}
prism.kill("SIGTERM");
await prism.status;
await collecting;
const violations = prismLog.split("\n").filter((line) => /violation|✖|error/i.test(line));
console.log(
  `${
    violations.length ? "FAIL" : "ok  "
  } Prism proxy: ${answered} answers, ${violations.length} violations`,
);
if (violations.length) {
  failed++;
  console.log(violations.slice(0, 20).join("\n"));
}

await server.stop();
await smtp.stop();
await Deno.remove(folder, { recursive: true });
Deno.exit(failed ? 1 : 0);
