/**
 * Lints the OpenAPI document the service serves with Redocly's CLI (`@redocly/cli lint`, its
 * recommended rules) and with Spectral (`spectral:oas`, `.spectral.yaml`): builds the document
 * in-process, writes it to a temporary file and runs both through npx (which installs them from
 * the npm registry on first use). Exits non-zero when either reports an error; Spectral fails on
 * warnings too.
 *
 * Usage: `deno task lint:openapi`
 *
 * @module
 */
import { createHandler } from "../mod.ts";

// A public origin, as in production (redocly warns of servers on localhost).
const response = await createHandler({ baseUrl: "https://studio.example" })(
  new Request("https://studio.example/openapi.json"),
);
const folder = await Deno.makeTempDir({ prefix: "studio-openapi-" });
const file = `${folder}/openapi.json`;
await Deno.writeTextFile(file, await response.text());
const redocly = await new Deno.Command("npx", {
  args: ["-y", "@redocly/cli@2.77.0", "lint", "--format", "stylish", file],
  env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
}).spawn().status;
const ruleset = new URL("../.spectral.yaml", import.meta.url).pathname;
const spectral = await new Deno.Command("npx", {
  args: [
    "-y",
    "-p",
    "@stoplight/spectral-cli@6.16.3",
    "spectral",
    "lint",
    "--ruleset",
    ruleset,
    "--fail-severity",
    "warn",
    file,
  ],
  env: { NO_COLOR: "1" },
}).spawn().status;
await Deno.remove(folder, { recursive: true });
Deno.exit(redocly.code || spectral.code);
