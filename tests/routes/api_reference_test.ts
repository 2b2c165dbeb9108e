import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler, SAMPLE_CORPUS, SAMPLE_SCHEDULE } from "../_fixture_studio.ts";
import { API_REFERENCE_POLICY, createApiReference } from "../../routes/api_reference.ts";
import type { RouteHandlers } from "../../lib/http/route.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import { API_REFERENCE_VERSION } from "../../build/api_reference_bundle.generated.ts";
import { createRecordingLogger, createTestClient } from "../_support.ts";
import { buildOperationSummary, OPERATIONS } from "../../lib/contract/contract.ts";

function createClient() {
  return createTestClient(
    createSampleHandler({ baseUrl: "https://studio.example", logger: createRecordingLogger() }),
  );
}

test("the API reference pages are pages of the site, whose renderer loads from the origin on request, under a policy that relaxes styles only", async () => {
  const client = createClient();
  for (
    const [path, language, other] of [
      ["/en/api-reference", "en", "/referencia-api"],
      ["/referencia-api", "pt-PT", "/en/api-reference"],
    ]
  ) {
    const response = await client.get(path);
    const html = await response.text();
    assert.equal(response.status, 200, path);
    const policy = response.headers.get("Content-Security-Policy") ?? "";
    assert.equal(policy, API_REFERENCE_POLICY);
    assert.match(policy, /script-src 'self';/, "scripts stay on the origin");
    assert.match(policy, /style-src 'self' 'unsafe-inline'/);
    assert.match(policy, /connect-src 'self'/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get("Content-Language"), language);
    assert.equal(
      response.headers.get("Link"),
      '</openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json"',
    );
    assert.match(html, new RegExp(`<html lang="${language}">`));
    // The site's template: its stylesheet, header and footer, and links to the other language.
    assert.match(html, /<link rel="stylesheet" href="\/assets\/site\.css\?v=/);
    assert.match(html, /<header class="site-header">/);
    assert.match(html, /<footer class="site-footer">/);
    assert.match(html, new RegExp(`<link rel="canonical" href="https://studio\\.example${path}">`));
    assert.match(html, new RegExp(`hreflang="[a-zA-Z-]+" href="https://studio\\.example${other}"`));
    assert.doesNotMatch(html, /name="robots" content="noindex"/);
    // Only the small start script; the renderer's URL is handed to it, loaded on request.
    const scripts = [...html.matchAll(/<script src="([^"]+)"[^>]*><\/script>/g)].map((match) =>
      match[1]
    );
    assert.deepEqual(scripts, ["/assets/api-reference/start.js"]);
    assert.match(
      html,
      new RegExp(
        `data-renderer="/assets/api-reference/standalone\\.js\\?v=${API_REFERENCE_VERSION}"`,
      ),
    );
    assert.doesNotMatch(html, /<script>|style=/, "nothing inline in the page itself");
    for (
      const src of [...scripts, `/assets/api-reference/standalone.js?v=${API_REFERENCE_VERSION}`]
    ) {
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

test("the API reference page holds the API without JavaScript: its rules, every error and policy, every operation, and links to the documents for software", async () => {
  const client = createClient();
  const html = await (await client.get("/en/api-reference")).text();
  const main = html.slice(html.indexOf("<main"), html.indexOf("</main>"));
  assert.match(main, /<h1 id="api-reference-title">API reference<\/h1>/);
  for (const heading of ["Rules of use", "Errors", "Rate limits", "Versioning", "Operations"]) {
    assert.match(main, new RegExp(`<h2 id="[a-z-]+">${heading}</h2>`), heading);
  }
  for (const code of ["bad-form", "validation-failed", "not-found", "rate-limited", "no-backend"]) {
    assert.match(main, new RegExp(`<td><code>${code}</code></td>`), code);
  }
  for (const operation of OPERATIONS) {
    assert.match(
      main,
      new RegExp(
        `<td><code>${operation.path}</code></td><td>${
          buildOperationSummary(operation, SAMPLE_SCHEDULE.meetingMinutes)
        }</td>`,
      ),
      operation.operationId,
    );
  }
  assert.match(main, /<a href="\/openapi\.json" type="application\/vnd\.oai\.openapi\+json">/);
  assert.match(main, /<a href="\/en\/llms\.txt">llms\.txt<\/a>/);
  assert.match(main, /<noscript><p>The interactive reference needs JavaScript/);
  const pt = await (await client.get("/referencia-api")).text();
  assert.match(pt, /<h1 id="api-reference-title">Referência da API<\/h1>/);
  assert.match(pt, /<div lang="en">/, "the API's English description is marked so");
  assert.match(pt, /<a href="\/llms\.txt">llms\.txt<\/a>/);
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
