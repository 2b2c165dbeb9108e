/**
 * The Deno entry of a checkout: `deno run -A main.ts` and `deno task start`. It runs the sources,
 * so an edit of `lib/` or `routes/` shows at the next start; what `deno task build` generates
 * from `content/` (`build/`, not in git) is built first when it is missing, as on a fresh clone.
 * The service itself starts in `adapters/deno/main.ts` (which Deno Deploy runs from its bundle,
 * `build/server/main.js`); `deno serve` runs `adapters/deno/serve.ts`.
 *
 * @module
 */
import { isDenoDeploy } from "./adapters/deno/deno_kv.ts";
import { buildIfMissing } from "./adapters/deno/build_if_missing.ts";

if (import.meta.main) {
  await buildIfMissing({ log: console.log, onDenoDeploy: isDenoDeploy() });
  // Imported once the build exists: the composition imports its modules.
  await import("./adapters/deno/main.ts");
}
