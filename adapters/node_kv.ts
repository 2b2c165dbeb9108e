// Adapter with side effects: opens Deno KV on Node and Bun through @deno/kv (native SQLite, node:fs,
// node:v8). Injected by node.ts, bun.ts and test helpers; nothing in lib/ or routes/ imports it.
/**
 * Deno KV for Node and Bun: `@deno/kv`'s `openKv` gives the same API as `Deno.openKv` over the
 * same SQLite engine (a local file) or the KV Connect protocol (a `denokv` server or Deno
 * Deploy's KV), including atomic checks, so the booking guarantees hold as on Deno.
 *
 * Values are stored in the V8 serialisation format. Node has it (`node:v8`); Bun's `node:v8`
 * writes JavaScriptCore's format instead, which `@deno/kv` refuses unless told explicitly. This
 * adapter tells it: on Bun, a KV file is readable by Bun only — and a KV Connect server shared
 * with Deno or Node instances must not be written from Bun.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import { deserialize, serialize } from "node:v8";
import { openKv } from "@deno/kv";
import type { Store } from "../lib/store/store.ts";
import { toKvFolder } from "../lib/store/kv_path.ts";

/**
 * Opens the store on Node or Bun: a local KV file (its folder created first), a KV Connect URL
 * (authenticated with the `DENO_KV_ACCESS_TOKEN` environment variable, as Deno does), or, with no
 * path, an ephemeral in-memory KV.
 *
 * @param path A file path, `:memory:`, an http(s) KV Connect URL, or `undefined`.
 * @returns The store.
 * @throws {Error} When the file cannot be created or the server refuses the connection.
 */
export async function openNodeKv(path: string | undefined): Promise<Store> {
  const folder = toKvFolder(path);
  if (folder) await mkdir(folder, { recursive: true });
  const kv = await openKv(path ?? "", { encodeV8: serialize, decodeV8: deserialize });
  // @deno/kv types an entry's value as `T | null` where Deno.Kv narrows it by `versionstamp`;
  // the objects are the same at run time.
  return kv as unknown as Store;
}
