import { test } from "node:test";
import assert from "node:assert/strict";
import { createSampleHandler } from "../_fixture_studio.ts";
import { createMemoryMailer, createMemoryStore } from "../../testing.ts";
import { resolveServices } from "../../lib/resolve_services.ts";
import { STUDIO_DEFAULTS } from "../_studio_defaults.ts";
import { buildRouteTable } from "../../routes/mod.ts";
import { createRecordingLogger, createTestClient, readError } from "../_support.ts";

const BASE_URL = "http://localhost:8000";
const FIELDS = { Name: "Rita Lopes", Email: "rita@example.pt", Message: "A site for our bakery." };

/** Every POST path of the route table, the site's included, with its parameters filled in. */
/** The pages whose form posts to themselves: their refusals are pages, not plain text. */
const FORM_PAGES: ReadonlySet<string> = new Set([
  "/contacto",
  "/en/contact",
  "/marcar-conversa",
  "/en/book",
  // The reschedule page; without a valid link, in Portuguese.
  "/booking/reschedule",
]);

function listPostPaths(): string[] {
  return buildRouteTable(resolveServices({}, STUDIO_DEFAULTS)).table
    .filter((route) => route.method === "POST")
    .map((route) => route.path.replace(/:[a-z]+/gi, "x").replace(/\*$/, "x"));
}

function createApp() {
  const mailer = createMemoryMailer();
  const store = createMemoryStore();
  const handler = createSampleHandler({
    store,
    mailer,
    logger: createRecordingLogger(),
    rateLimits: { write: 1000, booking: 1000 },
  });
  return { mailer, store, client: createTestClient(handler) };
}

test("every POST route answers 403 to a foreign or null Origin before reading the body", async () => {
  const paths = listPostPaths();
  // Contact, its alias, booking, both contact forms and the three booking actions, at least.
  assert.ok(paths.length >= 8, paths.join(" "));
  for (const path of ["/api/v1/contact", "/api/fuel-contact", "/api/v1/booking", "/contacto"]) {
    assert.ok(paths.includes(path), `${path} is a POST route`);
  }
  const { client, mailer, store } = createApp();
  for (const path of paths) {
    for (const origin of ["https://evil.example", "null", "http://localhost:8000.evil.example"]) {
      const response = await client.post(path, new URLSearchParams(FIELDS), { Origin: origin });
      if (path.startsWith("/api/")) {
        const body = await readError(response, 403, "validation-failed");
        assert.match(body.error.message, /is not allowed to post here/, `${path} ${origin}`);
        assert.match(body.error.hint, /http:\/\/localhost:8000\//, `${path} ${origin}`);
      } else if (FORM_PAGES.has(path)) {
        // A person posted the form: a page of the site, in the form's language, says what to do.
        assert.equal(response.status, 403, `${path} ${origin}`);
        assert.match(response.headers.get("Content-Type") ?? "", /^text\/html/, path);
        assert.match(
          await response.text(),
          path.startsWith("/en/")
            ? /studio&#39;s site|studio's site|from this address/
            : /site do estúdio|a partir deste endereço/,
          `${path} ${origin}`,
        );
      } else {
        assert.equal(response.status, 403, `${path} ${origin}`);
        assert.match(await response.text(), /is not allowed to post here/, `${path} ${origin}`);
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(mailer.sent, [], "no refused POST sent mail");
  const stored = [];
  for await (const entry of store.list({ prefix: ["inquiry"] })) stored.push(entry);
  assert.deepEqual(stored, [], "no refused POST stored an inquiry");
  store.close();
});

test("POST /api/v1/contact and /contacto accept their own origin and requests without Origin", async () => {
  const { client, store } = createApp();
  for (const headers of [{ Origin: BASE_URL }, {}] as Record<string, string>[]) {
    const api = await client.post("/api/v1/contact", JSON.stringify(FIELDS), {
      ...headers,
      "Content-Type": "application/json",
    });
    assert.equal(api.status, 200, await api.text());
    const form = new FormData();
    for (const [name, value] of Object.entries(FIELDS)) form.append(name, value);
    const page = await client.post("/contacto", form, headers);
    // Accepted: the form's answer is a redirect to its thank-you page (post/redirect/get).
    assert.equal(page.status, 303, JSON.stringify(headers));
    assert.ok(page.headers.get("Location"), JSON.stringify(headers));
  }
  store.close();
});

test("allowedOrigins replaces the default: the configured origins may post, the base URL no longer", async () => {
  const handler = createSampleHandler({
    baseUrl: "https://studio.example",
    allowedOrigins: ["https://www.studio.example"],
    logger: createRecordingLogger(),
  });
  const post = (origin: string) =>
    handler(
      new Request("http://127.0.0.1:8000/api/v1/contact", {
        method: "POST",
        headers: { Origin: origin, "Content-Type": "application/json" },
        body: JSON.stringify(FIELDS),
      }),
    );
  const refused = await post("https://studio.example");
  assert.equal(refused.status, 403);
  assert.equal((await refused.json()).error.code, "validation-failed");
  const accepted = await post("https://www.studio.example");
  await accepted.body?.cancel();
  assert.equal(accepted.status, 200);
});

test("every browser-facing POST accepts its own origin (scheme and Host) and Sec-Fetch-Site: same-origin, whatever the base URL, and still refuses another", async () => {
  const store = createMemoryStore();
  const handler = createSampleHandler({
    baseUrl: "https://studio.example",
    store,
    mailer: createMemoryMailer(),
    logger: createRecordingLogger(),
    rateLimits: { write: 1000, booking: 1000 },
  });
  // Opened at a LAN address, or behind a proxy without STUDIO_BASE_URL.
  const own = "http://192.168.1.20:8000";
  try {
    for (const path of ["/api/v1/contact", "/contacto", "/en/contact"]) {
      const form = path.startsWith("/api/");
      const post = (headers: Record<string, string>) =>
        handler(
          new Request(own + path, {
            method: "POST",
            headers: form ? { ...headers, "Content-Type": "application/json" } : headers,
            body: form ? JSON.stringify(FIELDS) : new URLSearchParams({
              name: FIELDS.Name,
              email: FIELDS.Email,
              message: FIELDS.Message,
            }),
            redirect: "manual",
          }),
        );
      const accepted = await post({ Origin: own });
      await accepted.body?.cancel();
      assert.notEqual(accepted.status, 403, `${path}: its own origin`);
      const fetched = await post({ Origin: "null", "Sec-Fetch-Site": "same-origin" });
      await fetched.body?.cancel();
      assert.notEqual(fetched.status, 403, `${path}: Sec-Fetch-Site: same-origin`);
      const foreign = await post({ Origin: "http://192.168.1.20:8001" });
      await foreign.body?.cancel();
      assert.equal(foreign.status, 403, `${path}: another port is another origin`);
    }
  } finally {
    store.close();
  }
});
