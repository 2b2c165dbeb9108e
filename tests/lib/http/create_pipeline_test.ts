import { test } from "node:test";
import assert from "node:assert/strict";
import { createPipeline } from "../../../lib/http/create_pipeline.ts";
import { resolveServices } from "../../../lib/resolve_services.ts";
import type { RouteDefinition } from "../../../lib/http/route.ts";
import { STUDIO_DEFAULTS } from "../../_studio_defaults.ts";
import { createRecordingLogger } from "../../_support.ts";

const BASE = "http://localhost:8000";

test("createPipeline() answers a form's refused Origin and its handler's failure with the route's own page, and logs the failure", async () => {
  const logger = createRecordingLogger();
  const services = resolveServices({ logger }, STUDIO_DEFAULTS);
  const page = (status: number, text: string) =>
    new Response(`<!doctype html><title>${text}</title>`, {
      status,
      headers: { "Content-Type": "text/html; charset=utf-8" },
    });
  const table: RouteDefinition[] = [
    {
      method: "POST",
      path: "/form",
      handle: () => {
        throw new TypeError("boom");
      },
      answerRefused: (_request, _context, error) =>
        page(error instanceof TypeError ? 500 : 403, String(error)),
    },
    {
      method: "POST",
      path: "/lazy-form",
      load: () =>
        Promise.resolve({
          handle: () => Promise.reject(new RangeError("lazy boom")),
          answerRefused: () => page(500, "lazy page"),
        }),
    },
    { method: "POST", path: "/plain", handle: () => Promise.reject(new Error("plain boom")) },
  ];
  const handler = createPipeline({
    ...services,
    table,
    fallback: () => new Response("not found", { status: 404 }),
  });
  const post = (path: string, headers: Record<string, string> = {}) =>
    handler(new Request(BASE + path, { method: "POST", headers, body: "x" }));

  const refused = await post("/form", { Origin: "https://evil.example" });
  assert.equal(refused.status, 403);
  assert.match(refused.headers.get("Content-Type") ?? "", /^text\/html/);
  assert.match(await refused.text(), /is not allowed to post here/);

  const failed = await post("/form");
  assert.equal(failed.status, 500);
  assert.match(await failed.text(), /TypeError: boom/);

  const lazy = await post("/lazy-form");
  assert.equal(lazy.status, 500);
  assert.equal(await lazy.text(), "<!doctype html><title>lazy page</title>");

  const plain = await post("/plain");
  assert.equal(plain.status, 500);
  assert.match(plain.headers.get("Content-Type") ?? "", /^text\/plain/);
  await plain.body?.cancel();

  const errors = logger.records.filter((record) => record.level === "error");
  assert.equal(errors.length, 3, "each unexpected failure logged once, the refusal not");
});
