/**
 * The npm package's library entry (`import … from "@studio/website"` on Node and Bun): installs
 * the `Temporal` global where it is missing (Node 20; Bun and Deno have it), then exports
 * everything `mod.ts` exports.
 *
 * @module
 */
import "temporal-polyfill/global";
export * from "../../mod.ts";
