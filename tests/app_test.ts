import { test } from "node:test";
import assert from "node:assert/strict";
import { createApp } from "../app.ts";
import { createRecordingLogger } from "./_support.ts";
import { createMemoryStore } from "../testing.ts";

test("createApp() opens a KV file that another process starting at the same moment holds locked", async () => {
  // Found by CI's run of two main.ts processes starting at once on one KV file: one exited with
  // "database is locked" from Deno.openKv itself.
  let attempts = 0;
  const app = await createApp({}, {
    openStore() {
      attempts++;
      if (attempts <= 2) return Promise.reject(new TypeError("database is locked"));
      return Promise.resolve(createMemoryStore());
    },
    logger: createRecordingLogger(),
  });
  try {
    assert.equal(attempts, 3);
    const health = await app.handler(new Request("http://localhost/api/v1/health"));
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await app.close();
  }
});

test("createApp() reports any other failure to open the store at once", async () => {
  let attempts = 0;
  await assert.rejects(
    createApp({}, {
      openStore() {
        attempts++;
        return Promise.reject(new Error("Permission denied (os error 13)"));
      },
      logger: createRecordingLogger(),
    }),
    /Permission denied/,
  );
  assert.equal(attempts, 1);
});
