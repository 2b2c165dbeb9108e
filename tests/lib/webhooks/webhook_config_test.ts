import { test } from "node:test";
import assert from "node:assert/strict";
import { ConfigError, type Environment, readConfig } from "../../../lib/config.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

function readError(env: Environment, variable: string): string {
  let message = "";
  assert.throws(() => readConfig(env), (error: unknown) => {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.variable, variable);
    message = error.message;
    return true;
  });
  return message;
}

test("readConfig() leaves webhooks off without STUDIO_WEBHOOK_URL", () => {
  assert.equal(readConfig({}).webhooks, undefined);
  assert.equal("webhooks" in readConfig({}), false);
});

test("readConfig() pairs each STUDIO_WEBHOOK_URL with one secret for all, or one secret each", () => {
  assert.deepEqual(
    readConfig({
      STUDIO_WEBHOOK_URL: "https://crm.example/hooks/studio, http://127.0.0.1:9000/in",
      STUDIO_WEBHOOK_SECRET: SECRET,
    }).webhooks,
    [
      { url: "https://crm.example/hooks/studio", secret: SECRET },
      { url: "http://127.0.0.1:9000/in", secret: SECRET },
    ],
  );
  assert.deepEqual(
    readConfig({
      STUDIO_WEBHOOK_URL: "https://crm.example/a https://chat.example/b",
      STUDIO_WEBHOOK_SECRET: `${SECRET}, ${OTHER}`,
    }).webhooks?.map((endpoint) => endpoint.secret),
    [SECRET, OTHER],
  );
});

test("readConfig() refuses plain http to another host than a loopback address", () => {
  const message = readError(
    { STUDIO_WEBHOOK_URL: "http://crm.example/hooks", STUDIO_WEBHOOK_SECRET: SECRET },
    "STUDIO_WEBHOOK_URL",
  );
  assert.match(message, /"http:\/\/crm\.example\/hooks" is not https/);
  for (const url of ["http://localhost:8080/x", "http://[::1]:9000/", "http://127.0.0.2/x"]) {
    assert.equal(
      readConfig({ STUDIO_WEBHOOK_URL: url, STUDIO_WEBHOOK_SECRET: SECRET }).webhooks?.length,
      1,
    );
  }
  assert.match(
    readError(
      { STUDIO_WEBHOOK_URL: "ftp://x.example/", STUDIO_WEBHOOK_SECRET: SECRET },
      "STUDIO_WEBHOOK_URL",
    ),
    /not an http or https URL/,
  );
  assert.match(
    readError(
      { STUDIO_WEBHOOK_URL: "https://user:pw@x.example/", STUDIO_WEBHOOK_SECRET: SECRET },
      "STUDIO_WEBHOOK_URL",
    ),
    /user name or password/,
  );
});

test("readConfig() refuses a missing or malformed STUDIO_WEBHOOK_SECRET without printing it", () => {
  const url = "https://crm.example/hooks";
  assert.match(
    readError({ STUDIO_WEBHOOK_URL: url }, "STUDIO_WEBHOOK_SECRET"),
    /required when STUDIO_WEBHOOK_URL is set/,
  );
  for (const secret of ["MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_short", "whsec_not base64!!"]) {
    const message = readError(
      { STUDIO_WEBHOOK_URL: url, STUDIO_WEBHOOK_SECRET: secret },
      "STUDIO_WEBHOOK_SECRET",
    );
    assert.match(message, /the secret is not whsec_ and the base64 of 24 to 64 bytes/);
    assert.equal(message.includes(secret), false, "the secret is not in the message");
  }
  assert.match(
    readError(
      {
        STUDIO_WEBHOOK_URL: `${url} https://b.example/`,
        STUDIO_WEBHOOK_SECRET: `${SECRET},whsec_x`,
      },
      "STUDIO_WEBHOOK_SECRET",
    ),
    /secret 2 is not whsec_/,
  );
  assert.match(
    readError(
      {
        STUDIO_WEBHOOK_URL: `${url} https://b.example/ https://c.example/`,
        STUDIO_WEBHOOK_SECRET: `${SECRET},${OTHER}`,
      },
      "STUDIO_WEBHOOK_SECRET",
    ),
    /2 secrets for 3 URLs/,
  );
  assert.match(
    readError({ STUDIO_WEBHOOK_SECRET: SECRET }, "STUDIO_WEBHOOK_SECRET"),
    /STUDIO_WEBHOOK_URL is not/,
  );
});

test("readConfig() refuses a URL listed twice and more than 5 endpoints", () => {
  assert.match(
    readError(
      {
        STUDIO_WEBHOOK_URL: "https://a.example/x,https://a.example/x",
        STUDIO_WEBHOOK_SECRET: SECRET,
      },
      "STUDIO_WEBHOOK_URL",
    ),
    /listed twice/,
  );
  const six = Array.from({ length: 6 }, (_, index) => `https://h${index}.example/`).join(",");
  assert.match(
    readError({ STUDIO_WEBHOOK_URL: six, STUDIO_WEBHOOK_SECRET: SECRET }, "STUDIO_WEBHOOK_URL"),
    /at most 5/,
  );
});
