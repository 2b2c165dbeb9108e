/**
 * JSON text built from the JSON of its parts where a part's JSON is already known: a tool whose
 * answer is mostly a value it has serialised before (a month's listing, kept while it does not
 * change) tells the memo that value's JSON once, and every message that carries the same value
 * is serialised without walking it again.
 *
 * @module
 */

/** The JSON of values already serialised, and the serialisation that uses it. */
export interface KnownJson {
  /**
   * Keeps the JSON of a value: an object (kept as long as the object lives, by identity) or a
   * long string (kept by value, among the last few).
   *
   * @param value The value; it must not change afterwards.
   * @param json `JSON.stringify(value)`.
   */
  remember(value: object | string, json: string): void;
  /**
   * `JSON.stringify(value)`, the same text, with the known JSON of the remembered values it holds.
   *
   * @param value A JSON value (a JSON-RPC message).
   * @returns Its JSON text.
   */
  stringify(value: unknown): string;
}

/** The shortest string worth remembering: shorter ones cost less to serialise than to look up. */
export const MIN_KNOWN_STRING_LENGTH = 256;

/** The most strings kept: the values of the few results that are being served again and again. */
const MAX_KNOWN_STRINGS = 16;

/**
 * Creates a memo of known JSON. A remembered value is replaced, as `JSON.stringify` walks the
 * message, by a placeholder string of this memo's own (a random one), which is then replaced by
 * the value's JSON in the text; should the text hold a placeholder that the memo did not put
 * there, the message is serialised again without the memo.
 *
 * @example Serialising a message that carries a known value
 * ```ts
 * import assert from "node:assert/strict";
 * import { createKnownJson } from "./create_known_json.ts";
 *
 * const known = createKnownJson();
 * const listing = { slots: ["09:00", "09:30"] };
 * known.remember(listing, JSON.stringify(listing));
 * const message = { result: { listing }, id: 1 };
 * assert.equal(known.stringify(message), JSON.stringify(message));
 * ```
 *
 * @returns The memo.
 */
export function createKnownJson(): KnownJson {
  const objects = new WeakMap<object, string>();
  const strings = new Map<string, string>();
  const placeholder = `known-json:${crypto.randomUUID()}`;
  const quotedPlaceholder = JSON.stringify(placeholder);

  function stringify(value: unknown): string {
    const parts: string[] = [];
    const text = JSON.stringify(value, (_key, member: unknown) => {
      const json = typeof member === "object" && member !== null
        ? objects.get(member)
        : typeof member === "string" && member.length >= MIN_KNOWN_STRING_LENGTH
        ? strings.get(member)
        : undefined;
      if (json === undefined) return member;
      parts.push(json);
      return placeholder;
    });
    if (parts.length === 0) return text;
    const pieces = text.split(quotedPlaceholder);
    if (pieces.length !== parts.length + 1) return JSON.stringify(value);
    let joined = pieces[0];
    for (let index = 0; index < parts.length; index++) joined += parts[index] + pieces[index + 1];
    return joined;
  }

  return {
    remember(value, json) {
      if (typeof value !== "string") {
        objects.set(value, json);
      } else if (value.length >= MIN_KNOWN_STRING_LENGTH) {
        if (strings.size >= MAX_KNOWN_STRINGS) strings.clear();
        strings.set(value, json);
      }
    },
    stringify,
  };
}
