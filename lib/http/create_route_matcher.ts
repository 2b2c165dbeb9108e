/**
 * Route matching: plain paths are looked up as they are written, and itty-router compiles the
 * others (its pattern syntax, e.g. `/assets/:name`, `/md/*`) into regular expressions, when the
 * first request needs them: a start-up that answers plain paths (a health check, a page) loads no
 * router. This module is the one place that reads itty-router's compiled route tuples.
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";

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
   * the GET routes (RFC 9110, section 9.3.2). A promise only while the patterns are not compiled
   * yet and one of them could come first.
   */
  match(method: string, pathname: string): R | undefined | Promise<R | undefined>;
  /**
   * Every route whose pattern matches `pathname`, whatever its method (for `Allow` on 405); a
   * promise while the patterns are not compiled yet.
   */
  matchAll(pathname: string): R[] | Promise<R[]>;
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
 * assert.equal((await matcher.match("HEAD", "/assets/site.css"))?.path, "/assets/:name");
 * assert.equal(await matcher.match("GET", "/contacto"), undefined);
 * assert.deepEqual((await matcher.matchAll("/contacto")).map((route) => route.method), ["POST"]);
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
  const patterned: Array<{ index: number; route: R }> = [];
  routes.forEach((route, index) => {
    if (isPattern(route.path)) {
      patterned.push({ index, route });
      return;
    }
    const key = trimTrailingSlashes(route.path);
    const indices = plain.get(key);
    if (indices) indices.push(index);
    else plain.set(key, [index]);
  });
  // What every path a pattern matches begins with: a path that begins with none of them, before
  // the plain route it matches, is answered without the router.
  const prefixes = patterned.map(({ index, route }) => ({ index, prefix: toLiteralPrefix(route) }));
  // A plain route ahead of every pattern (a health check) is answered without looking further.
  const firstPattern = prefixes.length ? prefixes[0].index : Number.POSITIVE_INFINITY;
  const mayMatchPattern = (pathname: string, before: number) =>
    before > firstPattern &&
    prefixes.some(({ index, prefix }) => index < before && pathname.startsWith(prefix));
  let compiled: CompiledPattern<R>[] | undefined;
  const compile = loadOnce(async () => {
    compiled = compilePatterns(await import("itty-router"), patterned);
    return compiled;
  });

  function findPlain(wanted: string, pathname: string): number {
    for (const index of plain.get(trimTrailingSlashes(pathname)) ?? []) {
      if (routes[index].method === wanted) return index;
    }
    return Number.POSITIVE_INFINITY;
  }

  function matchWith(
    patterns: CompiledPattern<R>[],
    wanted: string,
    pathname: string,
    first: number,
  ): R | undefined {
    for (const entry of patterns) {
      if (entry.index > first) break;
      if (entry.method === wanted && entry.pattern.test(pathname)) return entry.route;
    }
    return first === Number.POSITIVE_INFINITY ? undefined : routes[first];
  }

  function matchAllWith(patterns: CompiledPattern<R>[], pathname: string): R[] {
    const indices = [
      ...(plain.get(trimTrailingSlashes(pathname)) ?? []),
      ...patterns.filter((entry) => entry.pattern.test(pathname)).map((entry) => entry.index),
    ];
    return indices.sort((a, b) => a - b).map((index) => routes[index]);
  }

  return {
    match(method, pathname) {
      const wanted = method === "HEAD" ? "GET" : method;
      const first = findPlain(wanted, pathname);
      if (!mayMatchPattern(pathname, first)) return routes[first];
      if (compiled) return matchWith(compiled, wanted, pathname, first);
      return compile().then((patterns) => matchWith(patterns, wanted, pathname, first));
    },
    matchAll(pathname) {
      if (compiled || !mayMatchPattern(pathname, Number.POSITIVE_INFINITY)) {
        return matchAllWith(compiled ?? [], pathname);
      }
      return compile().then((patterns) => matchAllWith(patterns, pathname));
    },
  };
}

/** Compiles the patterned routes with itty-router, in table order. */
function compilePatterns<R extends RoutePattern>(
  { Router }: typeof import("itty-router"),
  patterned: ReadonlyArray<{ index: number; route: R }>,
): CompiledPattern<R>[] {
  const router = Router();
  for (const { route } of patterned) {
    if (route.method === "GET") router.get(route.path, () => undefined);
    else router.post(route.path, () => undefined);
  }
  // itty-router keeps one tuple per registration, in order: [METHOD, pattern, handlers, path].
  return router.routes.map(([method, pattern], position) => ({
    method,
    pattern,
    ...patterned[position],
  }));
}

/** A patterned route as itty-router compiled it, with its place in the table. */
interface CompiledPattern<R> {
  /** The method itty-router registered, upper case. */
  method: string;
  /** The regular expression of the path. */
  pattern: RegExp;
  /** The route's position in the table. */
  index: number;
  /** The route. */
  route: R;
}

/** Whether a path has itty-router's parameters (`:name`) or wildcards (`*`). */
function isPattern(path: string): boolean {
  return path.includes(":") || path.includes("*");
}

/**
 * The literal start of a pattern, which every path it matches begins with: the pattern up to the
 * slash before its first parameter or wildcard (itty-router makes a wildcard's slash optional:
 * `/md/*` matches `/md`). Its regular expression is that text, anchored, then the rest.
 */
function toLiteralPrefix(route: RoutePattern): string {
  const special = route.path.search(/[:*]/);
  return route.path.slice(0, Math.max(0, route.path.lastIndexOf("/", special)));
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
