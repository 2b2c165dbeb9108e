import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "fflate";
import { createHandler } from "../../../mod.ts";

const handler = createHandler({ baseUrl: "https://studio.example" });
const get = (path: string, headers: Record<string, string> = {}) =>
  handler(new Request("https://studio.example" + path, { headers }));

test("GET of a page answers gzip when Accept-Encoding allows it, with an ETag of its own and a 304", async () => {
  const plain = await get("/en", { "Accept-Encoding": "identity" });
  const text = await plain.text();
  assert.equal(plain.headers.get("Content-Encoding"), null);
  assert.equal(plain.headers.get("Vary"), "Accept, Accept-Encoding");
  const gzipped = await get("/en", { "Accept-Encoding": "br;q=1, gzip;q=0.8" });
  assert.equal(gzipped.status, 200);
  assert.equal(gzipped.headers.get("Content-Encoding"), "gzip");
  assert.equal(gzipped.headers.get("Vary"), "Accept, Accept-Encoding");
  const etag = gzipped.headers.get("ETag") ?? "";
  assert.notEqual(etag, plain.headers.get("ETag"));
  const bytes = new Uint8Array(await gzipped.arrayBuffer());
  assert.ok(bytes.length < text.length / 2);
  assert.equal(new TextDecoder().decode(gunzipSync(bytes)), text);
  const again = await get("/en", { "Accept-Encoding": "gzip", "If-None-Match": etag });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("ETag"), etag);
  await again.body?.cancel();
  const refused = await get("/en", { "Accept-Encoding": "gzip;q=0, *" });
  assert.equal(refused.headers.get("Content-Encoding"), null);
  await refused.body?.cancel();
});

test("GET /openapi.json answers gzip on the way out, and a small answer stays as it is", async () => {
  const gzipped = await get("/openapi.json", { "Accept-Encoding": "gzip" });
  assert.equal(gzipped.headers.get("Content-Encoding"), "gzip");
  assert.match(gzipped.headers.get("Vary") ?? "", /Accept-Encoding/);
  const document = JSON.parse(
    new TextDecoder().decode(gunzipSync(new Uint8Array(await gzipped.arrayBuffer()))),
  );
  assert.equal(document.openapi.startsWith("3.1"), true);
  const health = await get("/api/v1/health", { "Accept-Encoding": "gzip" });
  assert.equal(health.headers.get("Content-Encoding"), null);
  assert.equal((await health.json()).status, "ok");
});
