// Adapter with side effects: opens Deno KV with Deno.openKv (and creates a file's folder). Injected
// by main.ts and serve.ts; nothing in lib/ or routes/ imports it.
/**
 * Deno KV on Deno: the store of `deno task start`, `deno serve` and Deno Deploy.
 *
 * @module
 */
import type { Store } from "../../lib/store/store.ts";
import { toKvFolder } from "../../lib/store/kv_path.ts";

/**
 * Opens the store with `Deno.openKv`: a file (its folder created first), `:memory:`, a KV
 * Connect URL (token in `DENO_KV_ACCESS_TOKEN`), or, on Deno Deploy with no path, the
 * platform's KV.
 *
 * @param path A file path, `:memory:`, an http(s) KV Connect URL, or `undefined`.
 * @returns The store.
 * @throws {Error} When the file cannot be created or opened, or the server refuses.
 */
export async function openDenoKv(path: string | undefined): Promise<Store> {
  const folder = toKvFolder(path);
  if (folder) await Deno.mkdir(folder, { recursive: true });
  return await Deno.openKv(path);
}

/** Whether this process runs on Deno Deploy, which sets `DENO_DEPLOYMENT_ID`. */
export function isDenoDeploy(): boolean {
  return Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
}
