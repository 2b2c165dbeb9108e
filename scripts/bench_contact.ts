/**
 * Benchmark: contact submissions per second (`POST /api/v1/contact`, JSON) through the real
 * service with the write quota raised and a loopback SMTP server receiving the mail, next to
 * `GET /api/v1/health` in the same run. Prints both and the ratio.
 *
 * The mail of each inquiry is delivered after the answer, in the same process, so the first
 * figure holds whatever delivery ran during the round (under this load delivery falls behind and
 * part of it runs after). A second service with no SMTP server configured keeps the mail in its
 * outbox: its figure is the POST's own cost (read, validate, commit, answer), the one the
 * goal of a write at most 10× a health check's cost is about. The same service also takes the
 * inquiry through the contact page's form (urlencoded, answered 303), as a browser without
 * JavaScript sends it. Both services run as `deno task start` does, the request log on.
 *
 * Usage: `deno task bench:contact [--seconds 10] [--rounds 3] [--connections 50]`
 *
 * @module
 */
import { compare, type Measurement, printRatio, readFlag, startProcess } from "./_bench_support.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const script = `${folder}/contact.lua`;
await Deno.writeTextFile(
  script,
  `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '${
    JSON.stringify({
      Name: "Ana Sousa",
      Email: "ana@example.pt",
      Message: "Olá! Gostávamos de falar sobre um novo site para a nossa marca de cerâmica.",
      Category: "website",
      utm_source: "bench",
    })
  }'
`,
);
// The same inquiry through the contact page's form, as a browser without JavaScript posts it.
const formScript = `${folder}/contact_form.lua`;
await Deno.writeTextFile(
  formScript,
  `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = '${new URLSearchParams({
    Name: "Ana Sousa",
    Email: "ana@example.pt",
    Message: "Olá! Gostávamos de falar sobre um novo site para a nossa marca de cerâmica.",
    Category: "website",
    utm_source: "bench",
  })}'
`,
);
const smtp = await startProcess(["run", "--allow-all", "scripts/_smtp_sink.ts"], { PORT: "0" });
const smtpPort = new URL(smtp.origin).port;
const service = await startProcess(["run", "--allow-all", "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/bench.kv`,
  STUDIO_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  STUDIO_RATE_LIMIT_READ: "1000000000",
  STUDIO_RATE_LIMIT_WRITE: "1000000000",
});
const held = await startProcess(["run", "--allow-all", "main.ts"], {
  PORT: "0",
  HOST: "127.0.0.1",
  STUDIO_KV_PATH: `${folder}/held.kv`,
  STUDIO_RATE_LIMIT_READ: "1000000000",
  STUDIO_RATE_LIMIT_WRITE: "1000000000",
});
try {
  console.log(
    `POST /api/v1/contact vs GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}`,
  );
  const [contact, contactHeld, form, health] = await compare([
    {
      label: "POST /api/v1/contact",
      origin: service.origin,
      path: "/api/v1/contact",
      script,
      pid: service.pid,
    },
    {
      label: "POST …/contact, mail held",
      origin: held.origin,
      path: "/api/v1/contact",
      script,
      pid: held.pid,
    },
    {
      label: "POST /en/contact (form), held",
      origin: held.origin,
      path: "/en/contact",
      script: formScript,
      pid: held.pid,
    },
    {
      label: "GET /api/v1/health",
      origin: service.origin,
      path: "/api/v1/health",
      pid: service.pid,
    },
  ], { seconds, rounds, connections });
  console.log("  with delivery:");
  printRatio(contact, health);
  console.log("  mail held (the POST's own cost):");
  printRatio(contactHeld, health);
  const times = (ours: Measurement) =>
    ours.cpuMicrosecondsPerRequest && health.cpuMicrosecondsPerRequest
      ? `${(ours.cpuMicrosecondsPerRequest / health.cpuMicrosecondsPerRequest).toFixed(1)}×`
      : "?";
  console.log("  the form, mail held (answered 303 to the thank-you page):");
  printRatio(form, health);
  console.log(
    `  CPU per POST: ${times(contactHeld)} a health check's (goal ≤ 10×); ${
      times(contact)
    } with the delivery that ran meanwhile; ${times(form)} through the form`,
  );
} finally {
  await held.stop();
  await service.stop();
  await smtp.stop();
  await Deno.remove(folder, { recursive: true });
}
