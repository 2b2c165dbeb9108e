/**
 * Shared pieces of the benchmarks: start a server process and read its port, and run `wrk`.
 *
 * @module
 */

/** A server process started for a benchmark. */
export interface BenchProcess {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The process id, for reading its CPU time. */
  pid: number;
  /** Stops the process. */
  stop(): Promise<void>;
}

/**
 * Starts `deno <args>` (or another program with `program`) and waits until it logs a JSON line
 * with `"message":"Listening"` and its `port`. Its standard output is a pipe this process drains,
 * or, with `stdoutFile`, that file (as a deployment that sends the log to a file runs it: the
 * server's writes then cost it what they cost there, and nothing here reads them meanwhile).
 *
 * @param args Arguments of the program.
 * @param env Extra environment variables.
 * @param program The executable. @default {Deno.execPath()}
 * @param options `stdoutFile`: a file for the server's standard output, truncated first.
 */
export async function startProcess(
  args: string[],
  env: Record<string, string>,
  program = Deno.execPath(),
  options: { stdoutFile?: string } = {},
): Promise<BenchProcess> {
  const { stdoutFile } = options;
  // `sh -c 'exec …'` redirects, then becomes the server, keeping its pid and its core.
  const command = stdoutFile
    ? ["sh", "-c", 'exec "$0" "$@" >"$BENCH_STDOUT_FILE"', program, ...args]
    : [program, ...args];
  const pinned = await hasTaskset();
  const child = new Deno.Command(pinned ? "taskset" : command[0], {
    args: pinned ? ["-c", "0", ...command] : command.slice(1),
    env: { NO_COLOR: "1", ...env, ...(stdoutFile ? { BENCH_STDOUT_FILE: stdoutFile } : {}) },
    stdout: stdoutFile ? "null" : "piped",
    stderr: "inherit",
  }).spawn();
  const port = stdoutFile
    ? await readPortFromFile(stdoutFile, child)
    : await readPortFromPipe(child.stdout);
  if (port === undefined) {
    throw new Error(`${program} ${args.join(" ")} exited before listening`);
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

const LISTENING = /"message":"Listening".*?"port":(\d+)/;

async function readPortFromPipe(stdout: ReadableStream<Uint8Array>): Promise<number | undefined> {
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let output = "";
  let port: number | undefined;
  while (port === undefined) {
    const { value, done } = await reader.read();
    if (done) {
      console.error(output);
      return undefined;
    }
    output += value;
    const match = LISTENING.exec(output);
    if (match) port = Number(match[1]);
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })();
  return port;
}

async function readPortFromFile(
  path: string,
  child: Deno.ChildProcess,
): Promise<number | undefined> {
  let exited = false;
  child.status.then(() => exited = true);
  while (!exited) {
    const match = LISTENING.exec(await Deno.readTextFile(path).catch(() => ""));
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.error(await Deno.readTextFile(path).catch(() => ""));
  return undefined;
}

let tasksetPresent: boolean | undefined;

/** Whether `taskset` (util-linux) can pin processes to cores here (needs 2 cores or more). */
export async function hasTaskset(): Promise<boolean> {
  if (tasksetPresent === undefined) {
    try {
      const { success } = await new Deno.Command("taskset", { args: ["-c", "1", "true"] })
        .output();
      tasksetPresent = success && navigator.hardwareConcurrency >= 2;
    } catch {
      tasksetPresent = false;
    }
  }
  return tasksetPresent;
}

/** Reads the value after a command-line flag, e.g. `--seconds 10`. */
export function readFlag(name: string): string | undefined {
  const index = Deno.args.indexOf(name);
  return index >= 0 ? Deno.args[index + 1] : undefined;
}

/**
 * Reads the CPU time a process has used so far, user and system, in seconds (Linux
 * `/proc/<pid>/stat`, in clock ticks of 1/100 s); `undefined` where /proc is missing.
 */
export async function readCpuSeconds(pid: number): Promise<number | undefined> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** What one wrk run measured. */
export interface Measurement {
  /** Mean throughput over the run. */
  requestsPerSecond: number;
  /** Requests completed in the run. */
  requests: number;
  /**
   * The server's CPU time per request in microseconds, where its pid is known: a figure that
   * other load on the machine disturbs far less than throughput.
   */
  cpuMicrosecondsPerRequest?: number;
  /** 99th percentile latency as wrk prints it, e.g. `4.80ms`. */
  p99: string;
  /** Socket errors and non-2xx/3xx answers. */
  errors: number;
}

/**
 * Runs `wrk --latency` against `origin + path`: one thread pinned to core 1 where `taskset`
 * can pin, else two threads.
 *
 * @param origin The server.
 * @param options Duration in seconds, open connections, path, and an optional Lua script.
 * @throws {Error} When wrk is not installed (`apt-get install wrk`).
 */
export async function measure(
  origin: string,
  options: { seconds: number; connections: number; path: string; script?: string; pid?: number },
): Promise<Measurement> {
  const cpuBefore = options.pid ? await readCpuSeconds(options.pid) : undefined;
  const pinned = await hasTaskset();
  const args = [
    ...(pinned ? ["-c", "1", "wrk", "-t1"] : ["-t2"]),
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--latency",
    ...(options.script ? ["-s", options.script] : []),
    origin + options.path,
  ];
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(pinned ? "taskset" : "wrk", {
      args,
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (error) {
    throw new Error(`wrk is needed: apt-get install wrk (${error})`);
  }
  const text = new TextDecoder().decode(output.stdout);
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const p99 = /\s99%\s+(\S+)/.exec(text)?.[1] ?? "?";
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
    .exec(text);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0);
  const errors = non2xx +
    (socketErrors ? socketErrors.slice(1).reduce((sum, value) => sum + Number(value), 0) : 0);
  if (!Number.isFinite(requestsPerSecond)) throw new Error(`wrk printed no throughput:\n${text}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? 0);
  const cpuAfter = options.pid ? await readCpuSeconds(options.pid) : undefined;
  const cpuMicrosecondsPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && requests
    ? (cpuAfter - cpuBefore) * 1e6 / requests
    : undefined;
  return { requestsPerSecond, requests, p99, errors, cpuMicrosecondsPerRequest };
}

/** One target of {@linkcode compare}. */
export interface Target {
  /** Printed name. */
  label: string;
  /** The server. */
  origin: string;
  /** The path to request. */
  path: string;
  /** A wrk Lua script, e.g. for POST bodies. */
  script?: string;
  /** The server's process id, to measure its CPU time per request. */
  pid?: number;
}

/**
 * Measures targets alternately for several rounds after a short warm-up, prints each target's
 * median throughput, and returns the median measurements in the order given.
 */
export async function compare(
  targets: Target[],
  options: { seconds: number; rounds: number; connections: number },
): Promise<Measurement[]> {
  for (const target of targets) {
    await measure(target.origin, { ...options, ...target, seconds: 2 });
  }
  const runs: Measurement[][] = targets.map(() => []);
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, target] of targets.entries()) {
      runs[index].push(await measure(target.origin, { ...options, ...target }));
    }
  }
  return targets.map((target, index) => {
    const sorted = [...runs[index]].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const median = sorted[Math.floor(sorted.length / 2)];
    const all = runs[index].map((run) => run.requestsPerSecond.toFixed(0)).join(", ");
    const errors = runs[index].reduce((sum, run) => sum + run.errors, 0);
    const cpu = runs[index].map((run) => run.cpuMicrosecondsPerRequest)
      .filter((value): value is number => value !== undefined).sort((a, b) => a - b);
    const cpuMedian = cpu.length ? cpu[Math.floor(cpu.length / 2)] : undefined;
    const cpuText = cpuMedian === undefined ? "" : `, ${cpuMedian.toFixed(1)} µs CPU/request`;
    console.log(
      `  ${target.label.padEnd(28)} ${
        median.requestsPerSecond.toFixed(0).padStart(7)
      } requests/s median (${all}), p99 ${median.p99}${cpuText}${
        errors ? `, ${errors} errors` : ""
      }`,
    );
    return { ...median, cpuMicrosecondsPerRequest: cpuMedian };
  });
}

/**
 * Prints how `ours` compares with `other`: by throughput and by server CPU time per request
 * (the steadier figure on a shared machine), against a target percentage if one is given.
 */
export function printRatio(ours: Measurement, other: Measurement, targetPercent?: number): void {
  const target = targetPercent === undefined ? "" : ` (target ≥ ${targetPercent}%)`;
  const byThroughput = 100 * ours.requestsPerSecond / other.requestsPerSecond;
  console.log(`  ratio: ${byThroughput.toFixed(1)}% by throughput${target}`);
  if (ours.cpuMicrosecondsPerRequest && other.cpuMicrosecondsPerRequest) {
    const byCpu = 100 * other.cpuMicrosecondsPerRequest / ours.cpuMicrosecondsPerRequest;
    console.log(`  ratio: ${byCpu.toFixed(1)}% by server CPU time per request`);
  }
}
