import { test } from "node:test";
import assert from "node:assert/strict";
import { createHandler } from "../../../mod.ts";
import { createMemoryStore } from "../../../testing.ts";

const BASE = "https://studio.example";

test("every link of /llms.txt and /en/llms.txt is a document an agent can GET (200)", async () => {
  const store = createMemoryStore();
  const handler = createHandler({ baseUrl: BASE, store });
  try {
    for (const path of ["/llms.txt", "/en/llms.txt"]) {
      const response = await handler(new Request(BASE + path));
      assert.equal(response.status, 200, path);
      const text = await response.text();
      const links = [...text.matchAll(/\]\((https:\/\/studio\.example[^)\s]*)\)/g)].map((match) =>
        match[1]
      );
      assert.ok(links.length > 20, `${path}: only ${links.length} links read`);
      assert.ok(links.some((link) => link.endsWith("/mcp/server-card")), path);
      for (const link of links) {
        const answer = await handler(new Request(link));
        await answer.body?.cancel();
        assert.equal(answer.status, 200, `${path} links ${link}`);
      }
    }
  } finally {
    store.close();
  }
});
