/**
 * Starts the real service as a child process on a free loopback port, for end-to-end tests: on
 * Deno `main.ts` from source (`deno run`), on Node and Bun the npm package's executable
 * (`adapters/npm/cli.js`, beside the compiled tests in npm-tests/) under the same runtime. Internal to tests/.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RUNTIME } from "../_kv.ts";

/** A running service. */
export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The child process. */
  process: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /** Stops the process (SIGTERM, or SIGKILL with `kill: true`) and waits for it to exit. */
  stop(options?: { kill?: boolean }): Promise<void>;
}

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The program and arguments that start the service on the running runtime. */
export const SERVER_COMMAND: readonly string[] = RUNTIME === "deno"
  ? [process.execPath, "run", "--allow-all", "--quiet", "main.ts"]
  : [process.execPath, "adapters/npm/cli.js"];

/** Where the service's command runs: the repository on Deno, npm-tests/ on Node and Bun. */
export const SERVER_FOLDER: string = ROOT;

/**
 * Starts the service ({@linkcode SERVER_COMMAND}) with `env` on top of the current environment,
 * PORT=0 and HOST=127.0.0.1.
 *
 * @param env Extra environment variables (STUDIO_KV_PATH and the like).
 * @returns Once the service logged that it listens.
 * @throws {Error} When the process exits or does not listen within 30 s; the error holds its output.
 */
export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const [program, ...args] = SERVER_COMMAND;
  const child = spawn(
    program,
    args,
    {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", PORT: "0", HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Server did not start:\n${output}`)), 30_000);
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /"message":"Listening".*?"port":(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr?.on("data", (chunk) => output += chunk);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Server exited with ${code}:\n${output}`));
    });
  });
  const port = await listening;
  return {
    origin: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async stop(options = {}) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(options.kill ? "SIGKILL" : "SIGTERM");
      await exited;
    },
  };
}

/**
 * Runs the service expecting it to refuse to start, and returns its exit code and output.
 *
 * @param env Extra environment variables.
 */
export async function runServerExpectingFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const [program, ...args] = SERVER_COMMAND;
  const child = spawn(program, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", PORT: "0", HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk) => output += chunk);
  child.stderr?.on("data", (chunk) => output += chunk);
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const [code] = await once(child, "exit");
  clearTimeout(timer);
  return { code, output };
}

/**
 * Runs the operator's inbox listing on a KV file — `deno task inbox` on Deno,
 * `studio-website inbox` (the package's executable) on Node and Bun — and returns its exit code
 * and standard output.
 *
 * @param kvPath The KV file (`STUDIO_KV_PATH`).
 */
export async function runInbox(
  kvPath: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [program, ...args] = RUNTIME === "deno"
    ? [process.execPath, "task", "--quiet", "inbox"]
    : [...SERVER_COMMAND, "inbox"];
  const child = spawn(program, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", STUDIO_KV_PATH: kvPath },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => stdout += chunk);
  child.stderr?.on("data", (chunk) => stderr += chunk);
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const [code] = await once(child, "exit");
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/**
 * The resident set size of process `pid` in bytes, from `/proc/<pid>/status` (Linux), or
 * `undefined` where that file does not exist.
 *
 * @param pid The process id, e.g. `server.process.pid`.
 */
export function readRssBytes(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** A free loopback port, so the server's public origin can be known before it starts. */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== "object") throw new Error("No port");
  return address.port;
}
