import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler, SAMPLE_CORPUS } from "../_fixture_studio.ts";
import { API_REFERENCE_POLICY, createApiReference } from "../../routes/api_reference.ts";
import type { RouteHandlers } from "../../lib/http/route.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import { API_REFERENCE_VERSION } from "../../build/api_reference_bundle.generated.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";

function createClient() {
  return createTestClient(
    createSampleHandler({ baseUrl: "https://studio.example", logger: createRecordingLogger() }),
  );
}

test("the API reference pages load the vendored renderer from the origin, under a policy that relaxes styles only", async () => {
  const client = createClient();
  for (const [path, language] of [["/en/api-reference", "en"], ["/referencia-api", "pt-PT"]]) {
    const response = await client.get(path);
    const html = await response.text();
    assert.equal(response.status, 200, path);
    const policy = response.headers.get("Content-Security-Policy") ?? "";
    assert.equal(policy, API_REFERENCE_POLICY);
    assert.match(policy, /script-src 'self';/, "scripts stay on the origin");
    assert.match(policy, /style-src 'self' 'unsafe-inline'/);
    assert.match(policy, /connect-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.match(html, new RegExp(`<html lang="${language}">`));
    const scripts = [...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((match) =>
      match[1]
    );
    assert.deepEqual(scripts, [
      `/assets/api-reference/standalone.js?v=${API_REFERENCE_VERSION}`,
      "/assets/api-reference/start.js",
    ]);
    assert.doesNotMatch(html, /<script>|style=/, "nothing inline in the page itself");
    assert.match(html, /<noscript>.*href="\/openapi\.json"/s, "a way in without JavaScript");
    for (const src of scripts) {
      const script = await client.get(src);
      assert.equal(script.status, 200, src);
      assert.equal(script.headers.get("Content-Type"), "text/javascript; charset=utf-8");
      assert.ok(script.headers.get("ETag"), src);
      assert.ok((await script.text()).length > 0, src);
    }
  }
  const bundle = await client.get(`/assets/api-reference/standalone.js?v=${API_REFERENCE_VERSION}`);
  assert.equal(bundle.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
  await bundle.body?.cancel();
});

test("the API index's docs, the api-catalog's service-doc, llms.txt and the pages' links for software point to the API reference", async () => {
  const client = createClient();
  const index = await (await client.get("/api/v1")).json();
  assert.equal(index.docs, "https://studio.example/en/api-reference");
  const catalog = await (await client.get("/.well-known/api-catalog")).json();
  const docs = catalog.linkset[0]["service-doc"].map((link: { href: string }) => link.href);
  assert.ok(docs.includes("https://studio.example/en/api-reference"), docs.join(" "));
  assert.ok(docs.includes("https://studio.example/referencia-api"), docs.join(" "));
  for (
    const [llms, page, reference] of [
      ["/llms.txt", "/", "/referencia-api"],
      ["/en/llms.txt", "/en", "/en/api-reference"],
    ]
  ) {
    assert.match(
      await (await client.get(llms)).text(),
      new RegExp(`\\(https://studio\\.example${reference}\\)`),
    );
    assert.match(await (await client.get(page)).text(), new RegExp(`<a href="${reference}">`));
  }
});

test("createApiReference() loads the renderer from the services on the first request, once, and again after a failure", async () => {
  let loads = 0;
  const services = resolveServices({ baseUrl: "https://studio.example" }, {
    ...STUDIO_DEFAULTS,
    loadApiReference: () => {
      loads++;
      return loads === 1
        ? Promise.reject(new Error("The renderer could not be loaded"))
        : Promise.resolve({ version: "9.9.9", script: "window.Scalar = {};" });
    },
  });
  const reference = createApiReference({
    ...services,
    content: SAMPLE_CORPUS,
  });
  assert.equal(loads, 0, "making the handlers loads nothing");
  const handlers: Record<string, RouteHandlers> = {
    "/en/api-reference": reference.page("en"),
    "/assets/api-reference/standalone.js": reference.script,
  };
  const get = async (path: string): Promise<Response> => {
    const answer = await handlers[path].handle(new Request(`https://studio.example${path}`), {
      pathname: path,
      clientKey: "192.0.2.1",
    });
    assert.ok(answer instanceof Response, path);
    return answer;
  };
  await assert.rejects(get("/en/api-reference"), /could not be loaded/);
  assert.match(await (await get("/en/api-reference")).text(), /standalone\.js\?v=9\.9\.9/);
  const script = await get("/assets/api-reference/standalone.js");
  assert.equal(await script.text(), "window.Scalar = {};");
  assert.equal(loads, 2, "loaded once after the failure, for the page and the script");
});
