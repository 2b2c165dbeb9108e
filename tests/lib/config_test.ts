import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  type Config,
  ConfigError,
  type Environment,
  ENVIRONMENT_VARIABLES,
  readConfig,
} from "../../lib/config.ts";

const README_URL = new URL("../../README.md", import.meta.url);

const DEPRECATION_ENV = {
  STUDIO_DEPRECATION: "2027-01-01T00:00:00Z",
  STUDIO_SUNSET: "2027-07-01T00:00:00Z",
  STUDIO_SUNSET_LINK: "https://studio.example/docs/migrate-v2",
} as const;

/** Asserts that `env` is refused with a ConfigError naming `variable`, and returns its message. */
function assertConfigError(env: Environment, variable: string): string {
  let message = "";
  assert.throws(
    () => readConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
      assert.equal(error.name, "ConfigError");
      assert.equal(error.variable, variable);
      assert.ok(
        error.message.startsWith(`Invalid ${variable}: `),
        `message should name ${variable}: ${error.message}`,
      );
      message = error.message;
      return true;
    },
  );
  return message;
}

test("readConfig() applies every default to an empty environment", () => {
  const expected: Config = {
    port: 8000,
    host: "0.0.0.0",
    baseUrl: "http://localhost:8000",
    baseUrlFollowsPort: true,
    kvPath: "data/studio.kv",
    smtpUrl: undefined,
    mailFrom: "studio@localhost",
    inbox: "studio@localhost",
    team: ["studio@localhost"],
    allowedOrigins: ["http://localhost:8000"],
    busyCalendars: [],
    confirmation: "auto",
    bookingsPerAttendee: 3,
    reminderLeadMinutes: 1440,
    secret: undefined,
    trustProxy: undefined,
    rateLimits: { read: 120, write: 10, booking: 5 },
    rateLimitStore: "memory",
    log: "info",
    deprecation: undefined,
  };
  assert.deepEqual(readConfig({}), expected);
});

test("readConfig() treats empty and blank variables as unset", () => {
  const config = readConfig({ PORT: "", STUDIO_BASE_URL: "   ", STUDIO_CONFIRMATION: " " });
  assert.equal(config.port, 8000);
  assert.equal(config.baseUrl, "http://localhost:8000");
  assert.equal(config.confirmation, "auto");
});

test("readConfig() derives the default baseUrl and allowedOrigins from PORT", () => {
  const config = readConfig({ PORT: "3000" });
  assert.equal(config.port, 3000);
  assert.equal(config.baseUrl, "http://localhost:3000");
  assert.deepEqual(config.allowedOrigins, ["http://localhost:3000"]);
});

test("readConfig() defaults allowedOrigins to the origin of STUDIO_BASE_URL", () => {
  const config = readConfig({ STUDIO_BASE_URL: "https://Studio.Example/" });
  assert.equal(config.baseUrl, "https://studio.example");
  assert.deepEqual(config.allowedOrigins, ["https://studio.example"]);
});

test("readConfig() leaves kvPath undefined on Deno Deploy", () => {
  assert.equal(readConfig({}, { onDenoDeploy: true }).kvPath, undefined);
  assert.equal(readConfig({}, { onDenoDeploy: false }).kvPath, "data/studio.kv");
  assert.equal(
    readConfig({ STUDIO_KV_PATH: "/srv/studio.kv" }, { onDenoDeploy: true }).kvPath,
    "/srv/studio.kv",
  );
});

test("readConfig() accepts PORT from 0 to 65535", () => {
  assert.equal(readConfig({ PORT: "0" }).port, 0);
  assert.equal(readConfig({ PORT: "65535" }).port, 65535);
  assert.equal(readConfig({ PORT: " 8080 " }).port, 8080);
});

test("readConfig() rejects PORT=abc naming PORT", () => {
  const message = assertConfigError({ PORT: "abc" }, "PORT");
  assert.equal(message, `Invalid PORT: "abc" is not a whole number from 0 to 65535`);
});

test("readConfig() rejects PORT=70000 naming PORT", () => {
  const message = assertConfigError({ PORT: "70000" }, "PORT");
  assert.equal(message, `Invalid PORT: "70000" is not a whole number from 0 to 65535`);
  assertConfigError({ PORT: "-1" }, "PORT");
  assertConfigError({ PORT: "80.5" }, "PORT");
});

test("readConfig() rejects STUDIO_BASE_URL=ftp://x naming STUDIO_BASE_URL", () => {
  const message = assertConfigError({ STUDIO_BASE_URL: "ftp://x" }, "STUDIO_BASE_URL");
  assert.equal(message, `Invalid STUDIO_BASE_URL: "ftp://x" is not an http or https URL`);
  assertConfigError({ STUDIO_BASE_URL: "studio.example" }, "STUDIO_BASE_URL");
});

test("readConfig() rejects a STUDIO_BASE_URL with a path, query or fragment", () => {
  const message = assertConfigError(
    { STUDIO_BASE_URL: "https://studio.example/site" },
    "STUDIO_BASE_URL",
  );
  assert.match(message, /"https:\/\/studio\.example\/site" must be an origin without a path/);
  assertConfigError({ STUDIO_BASE_URL: "https://studio.example/?a=1" }, "STUDIO_BASE_URL");
  assertConfigError({ STUDIO_BASE_URL: "https://studio.example/#top" }, "STUDIO_BASE_URL");
});

test("readConfig() rejects STUDIO_SMTP_URL=http://x naming STUDIO_SMTP_URL", () => {
  const message = assertConfigError({ STUDIO_SMTP_URL: "http://x" }, "STUDIO_SMTP_URL");
  assert.equal(
    message,
    `Invalid STUDIO_SMTP_URL: "http://x" is not an smtp:// or smtps:// URL with a host`,
  );
  assertConfigError({ STUDIO_SMTP_URL: "smtp://" }, "STUDIO_SMTP_URL");
  assertConfigError({ STUDIO_SMTP_URL: "mail.example:587" }, "STUDIO_SMTP_URL");
});

test("readConfig() rejects a STUDIO_MAIL_FROM carrying a header injection", () => {
  const message = assertConfigError({ STUDIO_MAIL_FROM: "a\r\nBcc: x@y" }, "STUDIO_MAIL_FROM");
  assert.ok(message.endsWith("is not an e-mail address such as studio@example.pt"), message);
  assertConfigError(
    { STUDIO_MAIL_FROM: "Evil\r\nBcc: x@y.pt <studio@example.pt>" },
    "STUDIO_MAIL_FROM",
  );
  assertConfigError({ STUDIO_MAIL_FROM: "studio@example.pt\nBcc: x@y.pt" }, "STUDIO_MAIL_FROM");
  assertConfigError({ STUDIO_INBOX: "not an address" }, "STUDIO_INBOX");
});

test("readConfig() rejects STUDIO_CONFIRMATION=maybe naming STUDIO_CONFIRMATION", () => {
  const message = assertConfigError({ STUDIO_CONFIRMATION: "maybe" }, "STUDIO_CONFIRMATION");
  assert.equal(message, `Invalid STUDIO_CONFIRMATION: "maybe" is not "auto" or "manual"`);
});

test("readConfig() rejects STUDIO_TRUST_PROXY=forwarded naming STUDIO_TRUST_PROXY", () => {
  const message = assertConfigError({ STUDIO_TRUST_PROXY: "forwarded" }, "STUDIO_TRUST_PROXY");
  assert.equal(
    message,
    `Invalid STUDIO_TRUST_PROXY: "forwarded" is not one of x-forwarded-for, cf-connecting-ip, x-real-ip`,
  );
});

test("readConfig() rejects STUDIO_RATE_LIMIT_WRITE=0 naming STUDIO_RATE_LIMIT_WRITE", () => {
  const message = assertConfigError({ STUDIO_RATE_LIMIT_WRITE: "0" }, "STUDIO_RATE_LIMIT_WRITE");
  assert.equal(
    message,
    `Invalid STUDIO_RATE_LIMIT_WRITE: "0" is not a whole number from 1 to 1000000000`,
  );
  assertConfigError({ STUDIO_RATE_LIMIT_READ: "many" }, "STUDIO_RATE_LIMIT_READ");
  assertConfigError({ STUDIO_RATE_LIMIT_BOOKING: "-5" }, "STUDIO_RATE_LIMIT_BOOKING");
});

test("readConfig() rejects a STUDIO_SECRET shorter than 32 characters", () => {
  const message = assertConfigError({ STUDIO_SECRET: "s".repeat(31) }, "STUDIO_SECRET");
  assert.equal(message, "Invalid STUDIO_SECRET: it has 31 characters; use at least 32");
  assert.equal(readConfig({ STUDIO_SECRET: "s".repeat(32) }).secret, "s".repeat(32));
});

test("readConfig() rejects STUDIO_DEPRECATION without STUDIO_SUNSET and STUDIO_SUNSET_LINK", () => {
  const message = assertConfigError(
    { STUDIO_DEPRECATION: "2027-01-01T00:00:00Z" },
    "STUDIO_SUNSET",
  );
  assert.equal(
    message,
    "Invalid STUDIO_SUNSET: it is required when any of STUDIO_DEPRECATION, STUDIO_SUNSET and STUDIO_SUNSET_LINK is set",
  );
  assertConfigError(
    { STUDIO_DEPRECATION: "2027-01-01T00:00:00Z", STUDIO_SUNSET: "2027-07-01T00:00:00Z" },
    "STUDIO_SUNSET_LINK",
  );
  assertConfigError(
    { STUDIO_SUNSET: "2027-07-01T00:00:00Z", STUDIO_SUNSET_LINK: "https://studio.example/m" },
    "STUDIO_DEPRECATION",
  );
});

test(
  "readConfig() rejects a STUDIO_SUNSET less than 180 days after STUDIO_DEPRECATION naming STUDIO_SUNSET",
  () => {
    const message = assertConfigError(
      { ...DEPRECATION_ENV, STUDIO_SUNSET: "2027-02-01T00:00:00Z" },
      "STUDIO_SUNSET",
    );
    assert.match(message, /180 days/);
  },
);

test("readConfig() names the variable of a malformed deprecation date or link", () => {
  assertConfigError({ ...DEPRECATION_ENV, STUDIO_DEPRECATION: "2027-01-01" }, "STUDIO_DEPRECATION");
  assertConfigError({ ...DEPRECATION_ENV, STUDIO_SUNSET: "next summer" }, "STUDIO_SUNSET");
  assertConfigError({ ...DEPRECATION_ENV, STUDIO_SUNSET_LINK: "/migrate" }, "STUDIO_SUNSET_LINK");
});

test("readConfig() parses every variable set to a good value", () => {
  const env: Environment = {
    PORT: "3000",
    HOST: "127.0.0.1",
    STUDIO_BASE_URL: "https://Studio.Example/",
    STUDIO_KV_PATH: "/var/lib/studio/studio.kv",
    STUDIO_SMTP_URL: "smtps://user:pass@mail.example:465",
    STUDIO_MAIL_FROM: "Studio <studio@studio.example>",
    STUDIO_INBOX: "team@studio.example",
    STUDIO_TEAM: "Ana@Studio.Example, Rui <rui@studio.example>,ana@studio.example",
    STUDIO_ALLOWED_ORIGINS:
      "https://studio.example/, https://WWW.Studio.Example:443  http://localhost:5173/path",
    STUDIO_BUSY_CALENDARS:
      "https://cal.example/a.ics,https://cal.example/b.ics\nhttp://cal.example/c",
    STUDIO_CONFIRMATION: "manual",
    STUDIO_BOOKINGS_PER_ADDRESS: "5",
    STUDIO_REMINDER_LEAD_MINUTES: "120",
    STUDIO_SECRET: "0123456789abcdef0123456789abcdef",
    STUDIO_TRUST_PROXY: "X-Forwarded-For",
    STUDIO_RATE_LIMIT_READ: "60",
    STUDIO_RATE_LIMIT_WRITE: "3",
    STUDIO_RATE_LIMIT_BOOKING: "2",
    STUDIO_RATE_LIMIT_STORE: "KV",
    STUDIO_LOG: "Quiet",
    ...DEPRECATION_ENV,
  };
  const expected: Config = {
    port: 3000,
    host: "127.0.0.1",
    baseUrl: "https://studio.example",
    baseUrlFollowsPort: false,
    kvPath: "/var/lib/studio/studio.kv",
    smtpUrl: "smtps://user:pass@mail.example:465",
    mailFrom: "Studio <studio@studio.example>",
    inbox: "team@studio.example",
    team: ["ana@studio.example", "rui@studio.example"],
    allowedOrigins: [
      "https://studio.example",
      "https://www.studio.example",
      "http://localhost:5173",
    ],
    busyCalendars: [
      "https://cal.example/a.ics",
      "https://cal.example/b.ics",
      "http://cal.example/c",
    ],
    confirmation: "manual",
    bookingsPerAttendee: 5,
    reminderLeadMinutes: 120,
    secret: "0123456789abcdef0123456789abcdef",
    trustProxy: "x-forwarded-for",
    rateLimits: { read: 60, write: 3, booking: 2 },
    rateLimitStore: "kv",
    log: "quiet",
    deprecation: {
      deprecatedAt: "2027-01-01T00:00:00Z",
      sunsetAt: "2027-07-01T00:00:00Z",
      migrationUrl: "https://studio.example/docs/migrate-v2",
    },
  };
  assert.deepEqual(readConfig(env), expected);
});

test("readConfig() rejects an allowed origin or busy calendar that is not an http(s) URL", () => {
  assertConfigError(
    { STUDIO_ALLOWED_ORIGINS: "https://studio.example, studio.example" },
    "STUDIO_ALLOWED_ORIGINS",
  );
  assertConfigError(
    { STUDIO_BUSY_CALENDARS: "webcal://cal.example/a.ics" },
    "STUDIO_BUSY_CALENDARS",
  );
});

test("readConfig() rejects a rate-limit store other than memory or kv", () => {
  const message = assertConfigError(
    { STUDIO_RATE_LIMIT_STORE: "redis" },
    "STUDIO_RATE_LIMIT_STORE",
  );
  assert.match(message, /"redis" is not "memory" or "kv"/);
});

test("readConfig() rejects a log setting other than info or quiet", () => {
  const message = assertConfigError({ STUDIO_LOG: "verbose" }, "STUDIO_LOG");
  assert.match(message, /"verbose" is not "info" or "quiet"/);
});

test("readConfig() takes a KV Connect URL in STUDIO_KV_PATH as it is", () => {
  const config = readConfig({ STUDIO_KV_PATH: "http://127.0.0.1:4512" });
  assert.equal(config.kvPath, "http://127.0.0.1:4512");
});

test("readConfig() takes the team from STUDIO_TEAM, else the inbox's address", () => {
  assert.deepEqual(readConfig({}).team, ["studio@localhost"]);
  assert.deepEqual(readConfig({ STUDIO_INBOX: "Studio <Inbox@Studio.Example>" }).team, [
    "inbox@studio.example",
  ]);
  const message = assertConfigError({ STUDIO_TEAM: "ana@studio.example, ana" }, "STUDIO_TEAM");
  assert.match(message, /"ana" is not an e-mail address/);
});

test("ENVIRONMENT_VARIABLES lists the 25 variables readConfig() reads, each once", () => {
  const names = ENVIRONMENT_VARIABLES.map((variable) => variable.name);
  assert.equal(new Set(names).size, names.length);
  assert.deepEqual(names, [
    "PORT",
    "HOST",
    "STUDIO_BASE_URL",
    "STUDIO_KV_PATH",
    "STUDIO_SMTP_URL",
    "STUDIO_MAIL_FROM",
    "STUDIO_INBOX",
    "STUDIO_TEAM",
    "STUDIO_ALLOWED_ORIGINS",
    "STUDIO_BUSY_CALENDARS",
    "STUDIO_CONFIRMATION",
    "STUDIO_BOOKINGS_PER_ADDRESS",
    "STUDIO_REMINDER_LEAD_MINUTES",
    "STUDIO_WEBHOOK_URL",
    "STUDIO_WEBHOOK_SECRET",
    "STUDIO_SECRET",
    "STUDIO_TRUST_PROXY",
    "STUDIO_RATE_LIMIT_READ",
    "STUDIO_RATE_LIMIT_WRITE",
    "STUDIO_RATE_LIMIT_BOOKING",
    "STUDIO_RATE_LIMIT_STORE",
    "STUDIO_LOG",
    "STUDIO_DEPRECATION",
    "STUDIO_SUNSET",
    "STUDIO_SUNSET_LINK",
  ]);
});

test(
  "ENVIRONMENT_VARIABLES are each documented in README.md",
  () => {
    const readme = readFileSync(README_URL, "utf8");
    for (const { name } of ENVIRONMENT_VARIABLES) {
      assert.match(readme, new RegExp(`(^|[^A-Z0-9_])${name}($|[^A-Z0-9_])`), name);
    }
  },
);
