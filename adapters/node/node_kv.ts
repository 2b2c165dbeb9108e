// Adapter with side effects: opens Deno KV on Node and Bun through @deno/kv (native SQLite, node:fs,
// node:v8). Injected by node.ts, bun.ts and test helpers; nothing in lib/ or routes/ imports it.
/**
 * Deno KV for Node and Bun: `@deno/kv`'s `openKv` gives the same API as `Deno.openKv` over the
 * same SQLite engine (a local file) or the KV Connect protocol (a `denokv` server or Deno
 * Deploy's KV), including atomic checks, so the booking guarantees hold as on Deno.
 *
 * Values are stored in V8's serialisation format (a top-level `Uint8Array` or `KvU64` as raw
 * bytes). On Node this adapter reads and writes it so that a file or server is shared with Deno:
 *
 * - It writes with `node:v8`'s plain `Serializer`, V8's own format. `v8.serialize` (what
 *   `@deno/kv` uses by default) writes typed arrays as Node "host objects", which Deno cannot read
 *   ("could not deserialize value"); the outbox's mail bodies are `Uint8Array`s.
 * - It reads values of a newer format version than Node's V8 writes. Deno 2.9 (V8 15) writes
 *   format 16; Node 20 (V8 11.3) writes and reads up to 15 and refuses the rest ("Unable to
 *   deserialize cloned data due to invalid or unsupported version"). Format 16 changed only how
 *   array buffers longer than 4 GiB are written (V8's value-serializer.cc): below that the bytes
 *   are those of format 15, and a KV value is at most 64 KiB, so the header is read as 15.
 *   Newer formats are refused with an error that says which runtime wrote them.
 *
 * Bun's `node:v8` writes JavaScriptCore's format instead, which `@deno/kv` refuses unless told
 * explicitly. This adapter tells it: on Bun, a KV file is readable by Bun only — and a KV
 * Connect server shared with Deno or Node instances must not be written from Bun.
 *
 * @module
 */
import { mkdir } from "node:fs/promises";
import process from "node:process";
import { deserialize, serialize, Serializer } from "node:v8";
import { openKv } from "@deno/kv";
import type { Store } from "../../lib/store/store.ts";
import { toKvFolder } from "../../lib/store/kv_path.ts";

/** The first byte of a V8-serialised value: the version tag, followed by the format version. */
const V8_VERSION_TAG = 0xff;

/** A value codec as `@deno/kv`'s `openKv` takes it. */
interface V8Codec {
  encodeV8(value: unknown): Uint8Array;
  decodeV8(bytes: Uint8Array): unknown;
}

/**
 * Opens the store on Node or Bun: a local KV file (its folder created first), a KV Connect URL
 * (authenticated with the `DENO_KV_ACCESS_TOKEN` environment variable, as Deno does), or, with no
 * path, an ephemeral in-memory KV.
 *
 * @param path A file path, `:memory:`, an http(s) KV Connect URL, or `undefined`.
 * @returns The store. Reading a value the runtime cannot decode (written by Bun on Node or
 *   Deno, by Deno or Node on Bun, or in a V8 format newer than Node's V8 reads) throws an Error
 *   that names the writer.
 * @throws {Error} When the file cannot be created or the server refuses the connection.
 */
export async function openNodeKv(path: string | undefined): Promise<Store> {
  const folder = toKvFolder(path);
  if (folder) await mkdir(folder, { recursive: true });
  const { encodeV8, decodeV8 } = "Bun" in globalThis ? createBunCodec() : createNodeCodec();
  const kv = await openKv(path ?? "", { encodeV8, decodeV8 });
  // @deno/kv types an entry's value as `T | null` where Deno.Kv narrows it by `versionstamp`;
  // the objects are the same at run time.
  return kv as unknown as Store;
}

/**
 * The codec on Node: V8's own format, readable by Deno (see the module's documentation). Values
 * written by earlier builds with `v8.serialize` (typed arrays as Node host objects) are still
 * read, by `v8.deserialize`.
 */
function createNodeCodec(): V8Codec {
  // The format version this V8 writes, the newest it reads: the byte after the version tag.
  const readable = serialize(null)[1];
  return {
    encodeV8(value) {
      const serializer = new Serializer();
      serializer.writeHeader();
      serializer.writeValue(value);
      return serializer.releaseBuffer();
    },
    decodeV8(bytes) {
      if (bytes[0] !== V8_VERSION_TAG) {
        throw new Error(
          "A value in the KV store is not in V8's format: Bun wrote it (its values are in " +
            "JavaScriptCore's format), and only Bun reads it",
        );
      }
      const version = bytes[1];
      if (version <= readable) return deserialize(bytes);
      if (version === 16 && readable === 15) {
        const copy = Uint8Array.from(bytes);
        copy[1] = 15;
        return deserialize(copy);
      }
      throw new Error(
        `A value in the KV store is in V8 serialisation format ${version}, newer than Node ` +
          `${process.versions.node} (V8 ${process.versions.v8}) reads (up to ${readable}): it was ` +
          "written by a newer Deno or Node; read the store with that runtime or a newer Node",
      );
    },
  };
}

/** The codec on Bun: JavaScriptCore's format (see the module's documentation). */
function createBunCodec(): V8Codec {
  return {
    encodeV8: serialize,
    decodeV8(bytes) {
      if (bytes[0] === V8_VERSION_TAG) {
        throw new Error(
          "A value in the KV store is in V8's format: Deno or Node wrote it, and Bun cannot read " +
            "it (Bun's values are in JavaScriptCore's format)",
        );
      }
      return deserialize(bytes);
    },
  };
}
