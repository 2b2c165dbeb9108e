/**
 * What `STUDIO_KV_PATH` names: a local database file (whose folder may need creating), a KV
 * Connect URL of a `denokv` server or Deno Deploy, or SQLite's `:memory:`.
 *
 * @module
 */

/**
 * The folder a KV file lives in, to create before opening it; `undefined` for a KV Connect URL,
 * `:memory:`, the platform's default, or a file in the working directory.
 *
 * @param path The value of `STUDIO_KV_PATH`, if any.
 * @returns The folder, e.g. `data` for `data/studio.kv`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toKvFolder } from "./kv_path.ts";
 *
 * assert.equal(toKvFolder("data/studio.kv"), "data");
 * assert.equal(toKvFolder("http://127.0.0.1:4512"), undefined);
 * ```
 */
export function toKvFolder(path: string | undefined): string | undefined {
  if (!path || isKvConnectUrl(path) || path === ":memory:") return undefined;
  const folder = path.replace(/[\\/][^\\/]*$/, "");
  return folder && folder !== path ? folder : undefined;
}

/**
 * Whether `STUDIO_KV_PATH` is a KV Connect URL (`http://` or `https://`, e.g. a self-hosted
 * `denokv` server) rather than a file.
 *
 * @param path The value of `STUDIO_KV_PATH`.
 * @returns `true` for an http(s) URL.
 */
export function isKvConnectUrl(path: string): boolean {
  return /^https?:\/\//i.test(path);
}
