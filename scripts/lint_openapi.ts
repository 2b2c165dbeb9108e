/**
 * Lints the OpenAPI document the service serves with Redocly's CLI (`@redocly/cli lint`, its
 * recommended rules): builds the document in-process, writes it to a temporary file and runs
 * `npx -y @redocly/cli@2.77.0 lint` on it (npx installs it from the npm registry on first use).
 * Exits with the linter's status: non-zero when it reports an error.
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
const status = await new Deno.Command("npx", {
  args: ["-y", "@redocly/cli@2.77.0", "lint", "--format", "stylish", file],
  env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
}).spawn().status;
await Deno.remove(folder, { recursive: true });
Deno.exit(status.code);
