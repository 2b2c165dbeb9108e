/**
 * Route matching: itty-router compiles the route table's paths (its pattern syntax, e.g.
 * `/assets/:name`, `/md/*`) into regular expressions, and this module is the one place that
 * reads itty-router's compiled route tuples.
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
  const router = Router();
  for (const route of routes) {
    if (route.method === "GET") router.get(route.path, () => undefined);
    else router.post(route.path, () => undefined);
  }
  // itty-router keeps one tuple per registration, in order: [METHOD, pattern, handlers, path].
  const compiled = router.routes.map(([method, pattern], index) => ({
    method,
    pattern,
    route: routes[index],
  }));
  return {
    match(method, pathname) {
      const wanted = method === "HEAD" ? "GET" : method;
      for (let index = 0; index < compiled.length; index++) {
        const entry = compiled[index];
        if (entry.method === wanted && entry.pattern.test(pathname)) return entry.route;
      }
      return undefined;
    },
    matchAll(pathname) {
      return compiled.filter((entry) => entry.pattern.test(pathname)).map((entry) => entry.route);
    },
  };
}
