/**
 * Benchmark: bookings per second (`POST /api/v1/booking`) through the real service, with the
 * quotas raised and a loopback SMTP server receiving the invites, next to `GET /api/v1/health` in
 * the same run.
 *
 * A slot can be booked once, so there are two figures:
 *
 * 1. Created. Each round starts the service on a fresh KV file and books every slot it lists
 *    for the current month and the six after it, each once: a wrk Lua script hands every request
 *    the next start and stops when the list runs out. The rate is the bookings the server
 *    recorded over the span from the first `createdAt` to the last. The round then waits until
 *    the outbox has delivered both e-mails of every booking, and reports the server's CPU time
 *    per booking including those e-mails.
 * 2. Refused. With every slot taken, wrk cycles through the same starts: each request is read,
 *    validated, checked against availability and answered 409, alternating with health.
 *
 * Usage: `deno task bench:booking [--seconds 10] [--rounds 3] [--connections 50]`
 *
 * @module
 */
import {
  type BenchProcess,
  compare,
  hasTaskset,
  type Measurement,
  printRatio,
  readCpuSeconds,
  readFlag,
  startProcess,
} from "./_bench_support.ts";

const seconds = Number(readFlag("--seconds") ?? 10);
const rounds = Number(readFlag("--rounds") ?? 3);
const connections = Number(readFlag("--connections") ?? 50);
const MONTHS_AHEAD = 6;
const UNLIMITED = "1000000000";
/** The longest a round of booking every slot may take, in seconds. */
const MAX_BOOKING_SECONDS = 300;

const folder = await Deno.makeTempDir({ prefix: "studio-bench-" });
const smtp = await startProcess(["run", "--allow-all", "scripts/_smtp_sink.ts"], { PORT: "0" });
const smtpPort = new URL(smtp.origin).port;

function startService(kvPath: string): Promise<BenchProcess> {
  return startProcess(["run", "--allow-all", "main.ts"], {
    PORT: "0",
    HOST: "127.0.0.1",
    STUDIO_KV_PATH: kvPath,
    STUDIO_SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    STUDIO_LOG: "quiet", // the handler is measured, not the console
    STUDIO_RATE_LIMIT_READ: UNLIMITED,
    STUDIO_RATE_LIMIT_WRITE: UNLIMITED,
    STUDIO_RATE_LIMIT_BOOKING: UNLIMITED,
  });
}

/** Every start the service lists, from the current month to six months ahead. */
async function listSlots(origin: string): Promise<string[]> {
  const first = Temporal.Now.zonedDateTimeISO("Europe/Lisbon").toPlainDate().toPlainYearMonth();
  const starts: string[] = [];
  for (let offset = 0; offset <= MONTHS_AHEAD; offset++) {
    const month = first.add({ months: offset }).toString();
    const response = await fetch(`${origin}/api/v1/booking/slots?month=${month}`);
    if (!response.ok) throw new Error(`Listing ${month} answered ${response.status}`);
    const body: { slots: Record<string, Array<{ start: string }>> } = await response.json();
    starts.push(...Object.values(body.slots).flat().map((slot) => slot.start));
  }
  return starts;
}

/**
 * The Lua table of request bodies, one BookingRequest per start. The bodies are ASCII, so a JSON
 * string literal is also a valid Lua string literal.
 */
function toLuaBodies(starts: string[]): string {
  const bodies = starts.map((start, index) =>
    JSON.stringify(JSON.stringify({
      start,
      name: "Ana Sousa",
      email: `bench${index}@example.pt`,
      company: "Ceramica Lda",
      topic: "A new website for our ceramics brand",
      locale: index % 2 ? "pt" : "en",
    }))
  );
  return `local bodies = {\n${bodies.join(",\n")}\n}\n`;
}

const HEADERS = `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
`;

/** Books each start once, counts the answers, and stops the thread when the list runs out. */
function buildOnceScript(starts: string[]): string {
  return `${HEADERS}${toLuaBodies(starts)}
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
local index = 0
local verified = false
created, conflicts, others = 0, 0, 0
function request()
  -- wrk calls request() once before the run to check the script: that call sends nothing.
  if not verified then
    verified = true
    return wrk.format(nil, nil, nil, bodies[1])
  end
  index = index + 1
  if index > #bodies then
    wrk.thread:stop()
    index = #bodies
  end
  return wrk.format(nil, nil, nil, bodies[index])
end
function response(status, headers, body)
  if status == 201 then
    created = created + 1
  elseif status == 409 then
    conflicts = conflicts + 1
  else
    others = others + 1
  end
end
function done(summary, latency, requests)
  local c, k, o = 0, 0, 0
  for _, thread in ipairs(threads) do
    c = c + thread:get("created")
    k = k + thread:get("conflicts")
    o = o + thread:get("others")
  end
  io.write(string.format("STATUSES created=%d conflicts=%d others=%d\\n", c, k, o))
end
`;
}

/** Cycles through the starts for as long as wrk runs. */
function buildCycleScript(starts: string[]): string {
  return `${HEADERS}${toLuaBodies(starts)}
local index = 0
function request()
  index = index % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[index])
end
`;
}

/** Starts wrk on `POST /api/v1/booking` with a script, for at most `durationSeconds`. */
async function startWrk(
  origin: string,
  script: string,
  durationSeconds: number,
): Promise<Deno.ChildProcess> {
  const pinned = await hasTaskset();
  const args = [
    ...(pinned ? ["-c", "1", "wrk"] : []),
    "-t1",
    `-c${connections}`,
    `-d${durationSeconds}s`,
    "--latency",
    "-s",
    script,
    `${origin}/api/v1/booking`,
  ];
  // taskset execs wrk, so a signal to this process reaches wrk.
  return new Deno.Command(pinned ? "taskset" : "wrk", { args, stdout: "piped", stderr: "piped" })
    .spawn();
}

async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let count = 0;
  for await (const _ of kv.list({ prefix })) count++;
  return count;
}

/** What one round of booking every slot once measured. */
interface CreatedRound {
  /** Bookings per second over the first fifth of the bookings, when few slots are held. */
  firstFifthPerSecond: number;
  /** Bookings per second over the last fifth, when nearly every slot is held. */
  lastFifthPerSecond: number;
  bookings: number;
  listed: number;
  spanSeconds: number;
  bookingsPerSecond: number;
  conflicts: number;
  others: number;
  mailsSent: number;
  drainSeconds: number;
  cpuMicrosecondsPerBooking?: number;
  p99: string;
}

async function bookEverySlot(
  round: number,
): Promise<{ result: CreatedRound; service: BenchProcess; starts: string[] }> {
  const kvPath = `${folder}/round${round}.kv`;
  const service = await startService(kvPath);
  const starts = await listSlots(service.origin);
  const script = `${folder}/once${round}.lua`;
  await Deno.writeTextFile(script, buildOnceScript(starts));
  const kv = await Deno.openKv(kvPath);
  try {
    const cpuBefore = await readCpuSeconds(service.pid);
    const wrk = await startWrk(service.origin, script, MAX_BOOKING_SECONDS);
    // wrk keeps its clock running after the script stops: interrupt it (it then reports as
    // usual) once every slot is held, or once holds stop growing.
    let held = 0;
    let lastGrowth = performance.now();
    while (held < starts.length && performance.now() - lastGrowth < 3000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await countKeys(kv, ["slot"]);
      if (now > held) lastGrowth = performance.now();
      held = now;
    }
    try {
      wrk.kill("SIGINT");
    } catch { /* already done */ }
    const text = new TextDecoder().decode((await wrk.output()).stdout);
    const statuses = /STATUSES created=(\d+) conflicts=(\d+) others=(\d+)/.exec(text);
    const wrkEnded = performance.now();
    // The outbox delivers in the background: wait until it has sent every e-mail.
    const deadline = wrkEnded + 180_000;
    while (await countKeys(kv, ["outbox"]) > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const drainSeconds = (performance.now() - wrkEnded) / 1000;
    const cpuAfter = await readCpuSeconds(service.pid);
    const created: number[] = [];
    for await (const entry of kv.list<{ createdAt: string }>({ prefix: ["booking"] })) {
      created.push(Temporal.Instant.from(entry.value.createdAt).epochMilliseconds);
    }
    created.sort((a, b) => a - b);
    const spanSeconds = created.length > 1
      ? (created[created.length - 1] - created[0]) / 1000
      : Number.NaN;
    const fifth = Math.max(2, Math.floor(created.length / 5));
    const rateOf = (times: number[]) =>
      (times.length - 1) * 1000 / (times[times.length - 1] - times[0]);
    const result: CreatedRound = {
      firstFifthPerSecond: rateOf(created.slice(0, fifth)),
      lastFifthPerSecond: rateOf(created.slice(-fifth)),
      bookings: created.length,
      listed: starts.length,
      spanSeconds,
      bookingsPerSecond: (created.length - 1) / spanSeconds,
      conflicts: Number(statuses?.[2] ?? 0),
      others: Number(statuses?.[3] ?? 0),
      mailsSent: await countKeys(kv, ["outbox_sent"]),
      drainSeconds,
      cpuMicrosecondsPerBooking: cpuBefore !== undefined && cpuAfter !== undefined
        ? (cpuAfter - cpuBefore) * 1e6 / created.length
        : undefined,
      p99: /\s99%\s+(\S+)/.exec(text)?.[1] ?? "?",
    };
    return { result, service, starts };
  } finally {
    kv.close();
  }
}

let service: BenchProcess | undefined;
try {
  console.log(
    `POST /api/v1/booking vs GET /api/v1/health, wrk -c${connections} -d${seconds}s × ${rounds} rounds, Deno ${Deno.version.deno}`,
  );
  console.log("  created: a fresh KV file per round, every listed slot booked once");
  const created: CreatedRound[] = [];
  let starts: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    await service?.stop();
    const outcome = await bookEverySlot(round);
    service = outcome.service;
    starts = outcome.starts;
    const { result } = outcome;
    created.push(result);
    const cpu = result.cpuMicrosecondsPerBooking === undefined
      ? ""
      : `, ${result.cpuMicrosecondsPerBooking.toFixed(0)} µs CPU/booking with its e-mails`;
    console.log(
      `    round ${round}: ${result.bookings} of ${result.listed} slots booked in ${
        result.spanSeconds.toFixed(2)
      } s → ${result.bookingsPerSecond.toFixed(0)} bookings/s (first fifth ${
        result.firstFifthPerSecond.toFixed(0)
      }/s, last fifth ${
        result.lastFifthPerSecond.toFixed(0)
      }/s; p99 ${result.p99}; wrk saw ${result.conflicts} × 409 and ${result.others} other answers); ${result.mailsSent} e-mails delivered, outbox empty ${
        result.drainSeconds.toFixed(1)
      } s after the last booking${cpu}`,
    );
  }
  const sorted = [...created].sort((a, b) => a.bookingsPerSecond - b.bookingsPerSecond);
  const median = sorted[Math.floor(sorted.length / 2)];

  if (!service) throw new Error("No round ran");
  console.log("  refused: every slot taken, wrk cycles through them (each answer is a 409)");
  const script = `${folder}/cycle.lua`;
  await Deno.writeTextFile(script, buildCycleScript(starts));
  const [refused, health] = await compare([
    {
      label: "POST /api/v1/booking (409)",
      origin: service.origin,
      path: "/api/v1/booking",
      script,
      pid: service.pid,
    },
    {
      label: "GET /api/v1/health",
      origin: service.origin,
      path: "/api/v1/health",
      pid: service.pid,
    },
  ], { seconds, rounds, connections });

  const createdMeasurement: Measurement = {
    requestsPerSecond: median.bookingsPerSecond,
    requests: median.bookings,
    p99: median.p99,
    errors: median.others,
    cpuMicrosecondsPerRequest: median.cpuMicrosecondsPerBooking,
  };
  console.log(
    `  created bookings: ${median.bookingsPerSecond.toFixed(0)} bookings/s median (${
      created.map((round) => round.bookingsPerSecond.toFixed(0)).join(", ")
    })`,
  );
  console.log("  created bookings vs health:");
  printRatio(createdMeasurement, health);
  console.log("  refused bookings vs health:");
  printRatio(refused, health);
} finally {
  await service?.stop();
  await smtp.stop();
  await Deno.remove(folder, { recursive: true });
}
