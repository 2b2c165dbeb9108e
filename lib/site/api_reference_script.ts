/**
 * The API reference pages' renderer, as the composition root hands it in: a browser script of
 * some megabytes vendored at build time, kept out of `lib/` and loaded by the pages' first
 * request (see `Services.loadApiReference`).
 *
 * @module
 */

/** The vendored renderer of the API reference pages (Scalar's standalone browser bundle). */
export interface ApiReferenceScript {
  /** Its version, e.g. `1.72.1`: it is in the script's URL, so that a new one is a new URL. */
  version: string;
  /** The standalone browser script. */
  script: string;
}
