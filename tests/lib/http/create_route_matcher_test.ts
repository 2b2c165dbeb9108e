import { test } from "node:test";
import assert from "node:assert/strict";
import { Router } from "itty-router";
import { createRouteMatcher } from "../../../lib/http/create_route_matcher.ts";
import { buildRouteTable } from "../../../routes/mod.ts";
import { resolveServices } from "../../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../../_studio_defaults.ts";

/** What itty-router itself answers: every route compiled, the first match in table order. */
function matchWithItty(routes: ReadonlyArray<{ method: string; path: string }>) {
  const router = Router();
  for (const route of routes) router[route.method === "GET" ? "get" : "post"](route.path, () => {});
  return (method: string, pathname: string) => {
    const wanted = method === "HEAD" ? "GET" : method;
    const index = router.routes.findIndex(([verb, pattern]) =>
      verb === wanted && pattern.test(pathname)
    );
    return index < 0 ? undefined : routes[index];
  };
}

test("createRouteMatcher() matches every path of the route table as itty-router does, trailing slashes, HEAD and table order included", async () => {
  const { table } = buildRouteTable(resolveServices({}, STUDIO_DEFAULTS));
  const matcher = createRouteMatcher(table);
  const oracle = matchWithItty(table);
  const paths = new Set<string>(["/", "//", "/nowhere", "/en/", "/assets/", "/md", "/md/"]);
  for (const route of table) {
    const filled = route.path.replace(/:[a-z]+/gi, "x").replace(/\*$/, "en/services");
    for (const path of [filled, filled + "/", filled + "//", filled + "x", filled.toUpperCase()]) {
      paths.add(path);
    }
  }
  for (const path of paths) {
    for (const method of ["GET", "HEAD", "POST", "PUT"]) {
      assert.equal(await matcher.match(method, path), oracle(method, path), `${method} ${path}`);
    }
    // Every route whose own compiled pattern matches, whatever its method, in table order.
    const all = table.filter((route) => Router().get(route.path, () => {}).routes[0][1].test(path));
    assert.deepEqual(await matcher.matchAll(path), all, `all ${path}`);
  }
});

test("createRouteMatcher() lets a pattern listed before a plain path win, as the table orders them", async () => {
  const matcher = createRouteMatcher(
    [
      { method: "GET", path: "/a/:name" },
      { method: "GET", path: "/a/b" },
      { method: "GET", path: "/c" },
      { method: "GET", path: "/*" },
    ] as const,
  );
  assert.equal((await matcher.match("GET", "/a/b"))?.path, "/a/:name");
  assert.equal((await matcher.match("GET", "/c/"))?.path, "/c");
  assert.equal((await matcher.match("GET", "/d"))?.path, "/*");
  assert.deepEqual((await matcher.matchAll("/a/b")).map((route) => route.path), [
    "/a/:name",
    "/a/b",
    "/*",
  ]);
});

test("createRouteMatcher() answers a path no pattern can match at once, and compiles the patterns with the first path that one could", async () => {
  const matcher = createRouteMatcher(
    [
      { method: "GET", path: "/api/v1/health" },
      { method: "GET", path: "/assets/:name" },
      { method: "GET", path: "/md/*" },
      { method: "GET", path: "/en" },
    ] as const,
  );
  // No pattern comes before it, or none can match it (it begins with neither `/assets` nor
  // `/md`): a plain answer, not a promise, before anything is compiled.
  for (const [path, route] of [["/api/v1/health", "/api/v1/health"], ["/en", "/en"]]) {
    const answer = matcher.match("GET", path);
    assert.ok(!(answer instanceof Promise), path);
    assert.equal(answer?.path, route);
  }
  const nowhere = matcher.match("GET", "/nowhere");
  assert.ok(!(nowhere instanceof Promise));
  assert.equal(nowhere, undefined);
  assert.deepEqual(matcher.matchAll("/en"), [{ method: "GET", path: "/en" }]);
  // A pattern could match: the patterns are compiled first. `/md/*` matches `/md` itself.
  const bare = matcher.match("GET", "/md");
  assert.ok(bare instanceof Promise);
  assert.equal((await bare)?.path, "/md/*");
  // Compiled once: from then on every answer is plain.
  assert.equal(
    (matcher.match("GET", "/assets/site.css") as { path: string }).path,
    "/assets/:name",
  );
  assert.deepEqual(
    (matcher.matchAll("/assets/x") as Array<{ path: string }>).map((route) => route.path),
    ["/assets/:name"],
  );
});
