import { test } from "node:test";
import assert from "node:assert/strict";
import { gunzipSync } from "fflate";
import { brotliDecompressSync } from "node:zlib";
import { createSampleHandler } from "../../_fixture_studio.ts";

const handler = createSampleHandler({ baseUrl: "https://studio.example" });
const get = (path: string, headers: Record<string, string> = {}) =>
  handler(new Request("https://studio.example" + path, { headers }));

test("GET of a page answers gzip when Accept-Encoding allows it, with an ETag of its own and a 304", async () => {
  const plain = await get("/en", { "Accept-Encoding": "identity" });
  const text = await plain.text();
  assert.equal(plain.headers.get("Content-Encoding"), null);
  assert.equal(plain.headers.get("Vary"), "Accept, Accept-Encoding");
  const gzipped = await get("/en", { "Accept-Encoding": "gzip, deflate" });
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
  const refused = await get("/en", { "Accept-Encoding": "gzip;q=0, br;q=0" });
  assert.equal(refused.headers.get("Content-Encoding"), null);
  await refused.body?.cancel();
});

test("GET of a page answers Brotli where the client takes it, first on a tie, with an ETag of its own and a 304", async () => {
  const plain = await (await get("/en", { "Accept-Encoding": "identity" })).text();
  for (const accept of ["gzip, deflate, br, zstd", "br", "br;q=1, gzip;q=0.8", "gzip;q=0, *"]) {
    const response = await get("/en", { "Accept-Encoding": accept });
    assert.equal(response.headers.get("Content-Encoding"), "br", accept);
    assert.equal(response.headers.get("Vary"), "Accept, Accept-Encoding");
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.equal(new TextDecoder().decode(brotliDecompressSync(bytes)), plain, accept);
    assert.ok(bytes.length < plain.length / 2, accept);
  }
  const first = await get("/en", { "Accept-Encoding": "br" });
  const etag = first.headers.get("ETag") ?? "";
  await first.body?.cancel();
  assert.match(etag, /-br"$/);
  const again = await get("/en", { "Accept-Encoding": "br", "If-None-Match": etag });
  assert.equal(again.status, 304);
  await again.body?.cancel();
  const preferred = await get("/en", { "Accept-Encoding": "br;q=0.5, gzip" });
  assert.equal(preferred.headers.get("Content-Encoding"), "gzip", "the client's weights first");
  await preferred.body?.cancel();
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
