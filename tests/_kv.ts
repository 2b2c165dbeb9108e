/**
 * Opens a KV file the way the running runtime's service does, for tests that look into the
 * store of a server they started: `Deno.openKv` on Deno, `@deno/kv` (through the package's
 * adapter) on Node and Bun. Here each side is the same runtime; Deno and Node share a file through
 * the adapter (tests/e2e/kv_sharing_test.ts), while Bun writes its own value format. Internal
 * to tests/.
 *
 * @module
 */
import type { Store } from "../lib/store/store.ts";

/** The runtime running the tests. */
export const RUNTIME: "deno" | "bun" | "node" = "Deno" in globalThis
  ? "deno"
  : "Bun" in globalThis
  ? "bun"
  : "node";

/**
 * Opens the KV file at `path`.
 *
 * @param path The file, as given to the server in `STUDIO_KV_PATH`.
 * @returns The store; close it before the server opens the file again.
 */
export async function openKvFile(path: string): Promise<Store> {
  const runtime: { Deno?: { openKv(path: string): Promise<Store> } } = globalThis;
  if (runtime.Deno) return await runtime.Deno.openKv(path);
  const { openNodeKv } = await import("../adapters/node/node_kv.ts");
  return await openNodeKv(path);
}

/**
 * Opens the KV file at `path`, passes it to `use`, and closes it.
 *
 * @param path The file.
 * @param use What to do with the store.
 * @returns What `use` returns.
 */
export async function withKvFile<T>(path: string, use: (store: Store) => Promise<T>): Promise<T> {
  const store = await openKvFile(path);
  try {
    return await use(store);
  } finally {
    store.close();
  }
}
