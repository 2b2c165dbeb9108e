/**
 * Runs the MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against the
 * real service: starts `main.ts` on a free loopback port with a temporary KV file and a loopback
 * SMTP server, then runs `conformance server --url <origin>/mcp` under Node 22 (the suite's CLI
 * needs it; the project itself runs on Node 20) with the baseline of expected failures in
 * `scripts/conformance_mcp_baseline.yml`: the scenarios written for the SDK's "everything" test
 * server, whose tools, resources and prompts (`test_simple_text`, `test://static-text`, …) this
 * server does not have. Exits with the suite's status: 0 when every scenario outside the
 * baseline passes and every one in it still fails.
 *
 * Usage: `deno task conformance:mcp [--scenario <name>] [--verbose]` (needs npx and the npm
 * registry).
 *
 * @module
 */
import { startSmtpServer } from "../tests/_smtp.ts";
import { startProcess } from "./_bench_support.ts";

/** The suite's version, pinned so that the baseline stays meaningful. */
const CONFORMANCE = "@modelcontextprotocol/conformance@0.1.16";
const ROOT = new URL("../", import.meta.url).pathname;

/** A free loopback port: the service's own origin must be known before it starts. */
function findFreePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const smtp = await startSmtpServer();
const folder = await Deno.makeTempDir({ prefix: "studio-conformance-" });
const port = findFreePort();
const service = await startProcess(["run", "--allow-all", "--quiet", `${ROOT}main.ts`], {
  PORT: String(port),
  HOST: "127.0.0.1",
  // The dns-rebinding-protection scenario posts with the server's own Origin, which the Origin
  // rule of every POST accepts only when it is the site's.
  STUDIO_BASE_URL: `http://127.0.0.1:${port}`,
  STUDIO_KV_PATH: `${folder}/studio.kv`,
  STUDIO_SMTP_URL: smtp.url,
  STUDIO_INBOX: "ola@studio.example",
  STUDIO_MAIL_FROM: "Studio <site@studio.example>",
  // The suite sends many requests from one address.
  STUDIO_RATE_LIMIT_READ: "100000",
  STUDIO_RATE_LIMIT_WRITE: "100000",
  STUDIO_RATE_LIMIT_BOOKING: "100000",
});
let code = 1;
try {
  const args = [
    "-y",
    "-p",
    "node@22",
    "-p",
    CONFORMANCE,
    "conformance",
    "server",
    "--url",
    `${service.origin}/mcp`,
    "--expected-failures",
    `${ROOT}scripts/conformance_mcp_baseline.yml`,
    ...Deno.args,
  ];
  console.log(`npx ${args.join(" ")}`);
  const status = await new Deno.Command("npx", {
    args,
    cwd: folder,
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  code = status.code;
} finally {
  await service.stop();
  await smtp.stop();
  await Deno.remove(folder, { recursive: true }).catch(() => {});
}
Deno.exit(code);
