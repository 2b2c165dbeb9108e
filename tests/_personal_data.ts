/**
 * Looking for a person in a store, for the tests of erasure: every key and value as text, the
 * forms in which a person can be held (the address in any case, its SHA-256 digests, the name),
 * and the entries that hold any of them. Internal to tests/.
 *
 * @module
 */
import { sha256Hex } from "../lib/store/digest.ts";
import type { Store } from "../lib/store/store.ts";

/** Every key and value of the store as lower-case text, one string per entry. */
export async function scanStore(store: Store): Promise<string[]> {
  const toText = (value: unknown): string => {
    if (value instanceof Uint8Array) return new TextDecoder().decode(value);
    if (Array.isArray(value)) return value.map(toText).join(" ");
    if (value && typeof value === "object") {
      return Object.entries(value).map(([name, item]) => `${name} ${toText(item)}`).join(" ");
    }
    return String(value);
  };
  const entries: string[] = [];
  for await (const entry of store.list({ prefix: [] })) {
    entries.push(`${toText(entry.key)} => ${toText(entry.value)}`.toLowerCase());
  }
  return entries;
}

/**
 * The forms in which a store could hold a person, in lower case (a scan is): the address, the
 * SHA-256 digests of the address in lower case, upper case and as written, and the name.
 */
export async function tracesOf(person: { name: string; email: string }): Promise<string[]> {
  const forms = new Set([person.email, person.email.toLowerCase(), person.email.toUpperCase()]);
  return [
    person.email.toLowerCase(),
    person.name.toLowerCase(),
    ...await Promise.all([...forms].map((form) => sha256Hex(form))),
  ];
}

/** The entries of a scan that hold any of `traces`. */
export function findTraces(scan: readonly string[], traces: readonly string[]): string[] {
  return scan.filter((entry) => traces.some((trace) => entry.includes(trace)));
}
