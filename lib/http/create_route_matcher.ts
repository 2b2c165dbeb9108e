/**
 * Route matching: plain paths are looked up as they are written, and itty-router compiles the
 * others (its pattern syntax, e.g. `/assets/:name`, `/md/*`) into regular expressions; this module
 * is the one place that reads itty-router's compiled route tuples.
 *
 * @module
 */
import { Router } from "itty-router";

/** What the matcher needs of a route: its method and its path pattern in itty-router syntax. */
export interface RoutePattern {
  /** The method; a GET route also matches HEAD. */
  method: "GET" | "POST";
  /** The path pattern, e.g. `/api/v1/health`, `/assets/:name`, `/md/*`. */
  path: string;
}

/** The paths a {@linkcode RouteMatcher} matches, and the methods a path accepts. */
export interface RouteMatcher<R extends RoutePattern> {
  /**
   * The first route, in table order, of `method` whose pattern matches `pathname`; HEAD matches
   * the GET routes (RFC 9110, section 9.3.2).
   */
  match(method: string, pathname: string): R | undefined;
  /**
   * Every route whose pattern matches `pathname`, whatever its method (for `Allow` on 405).
   */
  matchAll(pathname: string): R[];
}

/**
 * Compiles a route table for matching. itty-router's `fetch` is not used: it parses every URL and
 * its query string again and awaits each stage, a cost the cheapest requests (a health check)
 * would feel, while the pipeline already holds the path.
 *
 * @param routes The route table, in the order routes are tried.
 * @returns The matcher.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createRouteMatcher } from "./create_route_matcher.ts";
 *
 * const matcher = createRouteMatcher([
 *   { method: "GET", path: "/assets/:name" },
 *   { method: "POST", path: "/contacto" },
 * ] as const);
 * assert.equal(matcher.match("HEAD", "/assets/site.css")?.path, "/assets/:name");
 * assert.equal(matcher.match("GET", "/contacto"), undefined);
 * assert.deepEqual(matcher.matchAll("/contacto").map((route) => route.method), ["POST"]);
 * ```
 */
export function createRouteMatcher<R extends RoutePattern>(
  routes: readonly R[],
): RouteMatcher<R> {
  // Most paths of the table are plain (a page, a document, an operation): they are looked up by
  // their path, and only the few with parameters or wildcards are compiled by itty-router and
  // tried in turn, so neither building the table nor matching a plain path pays for regular
  // expressions. Table order decides as before: a pattern listed before a plain path wins.
  const plain = new Map<string, number[]>();
  const router = Router();
  const patterned: Array<{ index: number; route: R }> = [];
  routes.forEach((route, index) => {
    if (isPattern(route.path)) {
      if (route.method === "GET") router.get(route.path, () => undefined);
      else router.post(route.path, () => undefined);
      patterned.push({ index, route });
      return;
    }
    const key = trimTrailingSlashes(route.path);
    const indices = plain.get(key);
    if (indices) indices.push(index);
    else plain.set(key, [index]);
  });
  // itty-router keeps one tuple per registration, in order: [METHOD, pattern, handlers, path].
  const compiled = router.routes.map(([method, pattern], position) => ({
    method,
    pattern,
    ...patterned[position],
  }));
  return {
    match(method, pathname) {
      const wanted = method === "HEAD" ? "GET" : method;
      let first = Number.POSITIVE_INFINITY;
      for (const index of plain.get(trimTrailingSlashes(pathname)) ?? []) {
        if (routes[index].method === wanted) {
          first = index;
          break;
        }
      }
      for (let position = 0; position < compiled.length; position++) {
        const entry = compiled[position];
        if (entry.index > first) break;
        if (entry.method === wanted && entry.pattern.test(pathname)) return entry.route;
      }
      return first === Number.POSITIVE_INFINITY ? undefined : routes[first];
    },
    matchAll(pathname) {
      const indices = [
        ...(plain.get(trimTrailingSlashes(pathname)) ?? []),
        ...compiled.filter((entry) => entry.pattern.test(pathname)).map((entry) => entry.index),
      ];
      return indices.sort((a, b) => a - b).map((index) => routes[index]);
    },
  };
}

/** Whether a path has itty-router's parameters (`:name`) or wildcards (`*`). */
function isPattern(path: string): boolean {
  return path.includes(":") || path.includes("*");
}

/**
 * A plain path as itty-router matches it: trailing slashes optional (`/en/` is `/en`, and `/`
 * is the empty path).
 */
function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}
