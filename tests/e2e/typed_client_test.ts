import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import createClient from "openapi-fetch";
import type { paths } from "../../build/api_types.generated.ts";
import { startServer } from "./_server.ts";
import { startSmtpServer } from "../_smtp.ts";
import { RUNTIME } from "../_kv.ts";
import { nextMonth, STUDIO_ZONE } from "./_studio.ts";

test("build/api_types.generated.ts is what openapi-typescript makes of /openapi.json now", {
  skip: RUNTIME !== "deno" && "runs the Deno build script",
}, () => {
  execFileSync(process.execPath, ["run", "-A", "scripts/build_api_types.ts", "--check"], {
    cwd: fileURLToPath(new URL("../../", import.meta.url)),
    stdio: "pipe",
  });
});

test(`a typed openapi-fetch client on the generated types reads health and slots and sends an inquiry (${RUNTIME})`, async () => {
  const folder = mkdtempSync(join(tmpdir(), "studio-typed-"));
  const smtp = await startSmtpServer();
  const server = await startServer({
    STUDIO_KV_PATH: join(folder, "studio.kv"),
    STUDIO_SMTP_URL: smtp.url,
  });
  try {
    const api = createClient<paths>({ baseUrl: server.origin });
    const health = await api.GET("/api/v1/health");
    assert.equal(health.response.status, 200);
    assert.equal(health.data?.status, "ok");

    const slots = await api.GET("/api/v1/booking/slots", {
      params: { query: { month: nextMonth() } },
    });
    assert.equal(slots.data?.timeZone, STUDIO_ZONE);
    assert.ok(Object.keys(slots.data?.slots ?? {}).length > 0);

    const bad = await api.GET("/api/v1/booking/slots", { params: { query: { month: "2020-01" } } });
    assert.equal(bad.response.status, 400);
    assert.equal(bad.error?.error.code, "validation-failed");

    const sent = await api.POST("/api/v1/contact", {
      body: { Name: "Rita Lopes", Email: "rita@example.pt", Message: "Typed, from openapi-fetch." },
    });
    assert.equal(sent.response.status, 200);
    assert.equal(sent.data?.ok, true);
    await smtp.waitFor(1, 15_000);
    assert.match(smtp.messages[0].parsed.text ?? "", /Typed, from openapi-fetch\./);
  } finally {
    await server.stop();
    await smtp.stop();
    rmSync(folder, { recursive: true, force: true });
  }
});
