/**
 * The soak test, on demand: starts the real server (main.ts, a temporary KV file, a loopback SMTP
 * server, `STUDIO_TRUST_PROXY=x-forwarded-for`) and sends it mixed traffic at a steady rate for
 * `--minutes` (health, the index, slot listings, pages as HTML and Markdown, `/md/` documents,
 * contact inquiries and bookings that mostly answer 409), printing every 5 s the latency
 * percentiles, the error count and the server's resident memory. Its verdict: memory did not grow
 * without bound, i.e. the median RSS of the last minute exceeds that of the first minute after a
 * one-minute warm-up by less than `RSS_GROWTH_LIMIT_BYTES`. Then a flood of 100,000 distinct
 * client addresses through X-Forwarded-For on a server with a read quota of one, each exhausting
 * its quota, while first-time visitors keep arriving: every visitor must be served, and the RSS
 * before and after must stay within the rate limiter's documented bound.
 *
 * Usage: `deno task soak [--minutes 5] [--rate 200] [--flood 100000]`
 *
 * @module
 */
import { readRssBytes, startServer } from "../tests/e2e/_server.ts";
import { startSmtpServer } from "../tests/_smtp.ts";

function readFlag(name: string, fallback: number): number {
  const index = Deno.args.indexOf(`--${name}`);
  return index >= 0 ? Number(Deno.args[index + 1]) : fallback;
}

const minutes = readFlag("minutes", 5);
const rate = readFlag("rate", 200);
const floodClients = readFlag("flood", 100_000);
/** The soak fails when the last minute's median RSS exceeds the first's by this much. */
const RSS_GROWTH_LIMIT_BYTES = 32 * 2 ** 20;
/**
 * The flood's bound: the limiter keeps at most 100,000 clients per policy and window (README,
 * Rate limits); 100,000 addresses of one policy in one window may cost this much at most.
 */
const FLOOD_LIMIT_BYTES = 64 * 2 ** 20;

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const folder = await Deno.makeTempDir({ prefix: "studio-soak-" });
const smtp = await startSmtpServer();
const server = await startServer({
  STUDIO_KV_PATH: `${folder}/soak.kv`,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_BASE_URL: "https://studio.example",
  STUDIO_TRUST_PROXY: "x-forwarded-for",
  STUDIO_LOG: "quiet", // thousands of requests: no line each
  STUDIO_RATE_LIMIT_READ: "1000000",
  STUDIO_RATE_LIMIT_WRITE: "1000000",
  STUDIO_RATE_LIMIT_BOOKING: "1000000",
});
const rss = () => readRssBytes(server.process.pid) ?? 0;

const month = Temporal.Now.zonedDateTimeISO("Europe/Lisbon").toPlainDate().toPlainYearMonth()
  .add({ months: 1 }).toString();
const listing = await (await fetch(`${server.origin}/api/v1/booking/slots?month=${month}`)).json();
const starts: string[] = Object.values(listing.slots as Record<string, Array<{ start: string }>>)
  .flat().map((slot) => slot.start).slice(0, 20);

type Kind = "health" | "index" | "slots" | "page" | "markdown" | "md" | "contact" | "booking";
const MIX: Array<[Kind, number]> = [
  ["health", 25],
  ["index", 10],
  ["slots", 15],
  ["page", 12],
  ["markdown", 8],
  ["md", 10],
  ["contact", 10],
  ["booking", 10],
];
const PAGES = ["/", "/en", "/servicos", "/en/services", "/en/agents", "/contacto", "/en/book"];
let sequence = 0;

function pick(): Kind {
  let roll = (sequence * 7919) % 100;
  for (const [kind, share] of MIX) {
    if (roll < share) return kind;
    roll -= share;
  }
  return "health";
}

function buildRequest(kind: Kind, number: number): Request {
  const origin = server.origin;
  const client = { "X-Forwarded-For": `192.0.2.${number % 50}` };
  const page = PAGES[number % PAGES.length];
  switch (kind) {
    case "health":
      return new Request(`${origin}/api/v1/health`, { headers: client });
    case "index":
      return new Request(`${origin}/api/v1`, { headers: client });
    case "slots":
      return new Request(`${origin}/api/v1/booking/slots?month=${month}`, { headers: client });
    case "page":
      return new Request(`${origin}${page}`, { headers: client });
    case "markdown":
      return new Request(`${origin}${page}`, { headers: { ...client, Accept: "text/markdown" } });
    case "md":
      return new Request(`${origin}/md${page === "/" ? "/" : page}`, { headers: client });
    case "contact":
      return new Request(`${origin}/api/v1/contact`, {
        method: "POST",
        headers: { ...client, "Content-Type": "application/json" },
        body: JSON.stringify({
          Name: "Soak Test",
          Email: `soak-${number}@load.example`,
          Message: `Soak inquiry ${number}`,
        }),
      });
    case "booking":
      return new Request(`${origin}/api/v1/booking`, {
        method: "POST",
        headers: { ...client, "Content-Type": "application/json" },
        body: JSON.stringify({
          start: starts[number % starts.length],
          name: "Soak Test",
          email: `soak-${number}@load.example`,
          topic: "A steady stream of bookings",
          locale: "en",
        }),
      });
  }
}

const EXPECTED: Record<Kind, number[]> = {
  health: [200],
  index: [200],
  slots: [200],
  page: [200],
  markdown: [200],
  md: [200],
  contact: [200],
  booking: [201, 409],
};

function percentile(sorted: number[], share: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))];
}

interface Interval {
  latencies: number[];
  errors: number;
  unexpected: number;
}
let interval: Interval = { latencies: [], errors: 0, unexpected: 0 };
const all: number[] = [];
let totalErrors = 0;
let totalUnexpected = 0;
let inFlight = 0;
const samples: Array<{ seconds: number; rss: number }> = [];

async function send(): Promise<void> {
  const number = sequence++;
  const kind = pick();
  const started = performance.now();
  const current = interval;
  inFlight++;
  try {
    const response = await fetch(buildRequest(kind, number));
    await response.arrayBuffer();
    const milliseconds = performance.now() - started;
    current.latencies.push(milliseconds);
    all.push(milliseconds);
    if (response.status >= 500) {
      current.errors++;
      totalErrors++;
    } else if (!EXPECTED[kind].includes(response.status)) {
      current.unexpected++;
      totalUnexpected++;
    }
  } catch {
    current.errors++;
    totalErrors++;
  } finally {
    inFlight--;
  }
}

const rssStart = rss();
console.log(
  `soak: ${minutes} min at ${rate} requests/s against ${server.origin}, server RSS ${
    mib(rssStart)
  }`,
);
const began = performance.now();
const endAt = began + minutes * 60_000;
let nextReportAt = began + 5_000;
const pending = new Set<Promise<void>>();
let due = began;
while (performance.now() < endAt) {
  // Steady rate: send whatever is due by now, then sleep to the next tick.
  while (due <= performance.now()) {
    const request = send();
    pending.add(request);
    request.finally(() => pending.delete(request));
    due += 1000 / rate;
  }
  if (performance.now() >= nextReportAt) {
    const sorted = interval.latencies.sort((a, b) => a - b);
    const seconds = Math.round((performance.now() - began) / 1000);
    const now = rss();
    samples.push({ seconds, rss: now });
    console.log(
      `  ${String(seconds).padStart(4)} s  ${String(sorted.length).padStart(5)} req  p50 ${
        percentile(sorted, 0.5).toFixed(1)
      } ms  p90 ${percentile(sorted, 0.9).toFixed(1)} ms  p99 ${
        percentile(sorted, 0.99).toFixed(1)
      } ms  errors ${interval.errors}  unexpected ${interval.unexpected}  in flight ${inFlight}  RSS ${
        mib(now)
      }`,
    );
    interval = { latencies: [], errors: 0, unexpected: 0 };
    nextReportAt += 5_000;
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(1, due - performance.now())));
}
await Promise.all(pending);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const totalSeconds = (performance.now() - began) / 1000;
const warmUp = Math.min(60, totalSeconds / 5);
const firstMinute = samples.filter((s) => s.seconds > warmUp && s.seconds <= warmUp + 60);
const lastMinute = samples.filter((s) => s.seconds > totalSeconds - 60);
const first = median(firstMinute.map((s) => s.rss));
const last = median(lastMinute.map((s) => s.rss));
const sorted = all.sort((a, b) => a - b);
const memoryBounded = last - first < RSS_GROWTH_LIMIT_BYTES;
console.log(
  `soak: ${sorted.length} requests in ${totalSeconds.toFixed(0)} s (${
    (sorted.length / totalSeconds).toFixed(0)
  }/s); latency p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p90 ${
    percentile(sorted, 0.9).toFixed(1)
  } ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, max ${
    (sorted[sorted.length - 1] ?? 0).toFixed(1)
  } ms; ${totalErrors} errors (5xx or no answer), ${totalUnexpected} unexpected statuses; ` +
    `${smtp.messages.length} e-mails received`,
);
console.log(
  `soak: RSS ${mib(rssStart)} at start, median ${mib(first)} in the first minute after ${
    warmUp.toFixed(0)
  } s of warm-up, ${mib(last)} in the last minute: ${
    memoryBounded ? "bounded" : "GROWING"
  } (limit +${mib(RSS_GROWTH_LIMIT_BYTES)})`,
);

await server.stop();

// The flood, on a second server whose read quota is 1 per client: 100,000 distinct addresses each
// exhaust their quota (a 200, then a 429), 50 at a time, while a first-time visitor arrives every
// 500 flood addresses and must be served (a full client table must not hand newcomers a counter
// the flood exhausted).
const floodServer = await startServer({
  STUDIO_KV_PATH: `${folder}/flood.kv`,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_BASE_URL: "https://studio.example",
  STUDIO_TRUST_PROXY: "x-forwarded-for",
  STUDIO_LOG: "quiet",
  STUDIO_RATE_LIMIT_READ: "1",
});
const floodRss = () => readRssBytes(floodServer.process.pid) ?? 0;
const floodBefore = floodRss();
const floodStarted = performance.now();
let floodErrors = 0;
let visitors = 0;
let visitorsRefused = 0;
let next = 0;
async function sendHealth(address: string): Promise<number> {
  const response = await fetch(`${floodServer.origin}/api/v1/health`, {
    headers: { "X-Forwarded-For": address },
  });
  await response.arrayBuffer();
  return response.status;
}
async function floodWorker(): Promise<void> {
  while (next < floodClients) {
    const number = next++;
    const address = `10.${(number >> 16) & 255}.${(number >> 8) & 255}.${number & 255}`;
    try {
      const statuses = [await sendHealth(address), await sendHealth(address)];
      if (statuses[0] !== 200 || statuses[1] !== 429) floodErrors++;
      if (number % 500 === 0) {
        visitors++;
        const visitor = `2001:db8:${(number >> 16).toString(16)}:${
          (number & 0xffff).toString(16)
        }::1`;
        if (await sendHealth(visitor) !== 200) visitorsRefused++;
      }
    } catch {
      floodErrors++;
    }
  }
}
await Promise.all(Array.from({ length: 50 }, floodWorker));
const floodAfter = floodRss();
const perClient = (floodAfter - floodBefore) / floodClients;
const floodBounded = floodAfter - floodBefore < FLOOD_LIMIT_BYTES;
console.log(
  `flood: ${floodClients} distinct client addresses (a 200 then a 429 each) in ${
    ((performance.now() - floodStarted) / 1000).toFixed(0)
  } s, ${floodErrors} answered otherwise; ${
    visitors - visitorsRefused
  } of ${visitors} first-time ` +
    `visitors served during it; RSS ${mib(floodBefore)} → ${mib(floodAfter)} (${
      perClient.toFixed(0)
    } bytes per client): ${floodBounded ? "within" : "OVER"} the bound of +${
      mib(FLOOD_LIMIT_BYTES)
    }`,
);

await floodServer.stop();
await smtp.stop();
await Deno.remove(folder, { recursive: true });
if (!memoryBounded || !floodBounded || totalErrors > 0 || floodErrors > 0 || visitorsRefused > 0) {
  Deno.exit(1);
}
