/**
 * The service's configuration: environment variables, all optional, read and checked once at
 * start-up. A bad value stops the start with a message that names the variable.
 *
 * @module
 */
import { TRUSTED_PROXY_HEADERS, type TrustedProxyHeader } from "./http/client_address.ts";
import { isEmailAddress } from "./contract/text_formats.ts";
import { API_PREFIX, MIN_SUNSET_DAYS, RATE_LIMIT_POLICIES } from "./contract/contract.ts";
import { DEFAULT_BOOKINGS_PER_ATTENDEE } from "./booking/booking_store.ts";
import { buildVersionHeaders, type DeprecationNotice } from "./http/versioning.ts";

/**
 * The public origin of a service on this machine at `port`: the base URL when none is given.
 *
 * @param port The port, or a placeholder such as `$PORT` for the documentation.
 * @returns `http://localhost:<port>`.
 */
export function buildLocalBaseUrl(port: number | string): string {
  return `http://localhost:${port}`;
}

/** The listening port when `PORT` is unset. */
const DEFAULT_PORT = 8000;

/**
 * The service's defaults where the environment (or `createHandler`'s options) say nothing: one
 * place for each, read by {@linkcode readConfig}, the option resolution and the command line.
 */
export const SERVICE_DEFAULTS = {
  /** TCP port to listen on. */
  port: DEFAULT_PORT,
  /** Address to listen on: every interface. */
  host: "0.0.0.0",
  /** The public origin. */
  baseUrl: buildLocalBaseUrl(DEFAULT_PORT),
  /** The Deno KV database file, off Deno Deploy. */
  kvPath: "data/studio.kv",
  /** From address of outgoing e-mail, and the studio's inbox. */
  mailAddress: "studio@localhost",
  /** Minutes before a booking's start that its attendee is reminded; 0: no reminders. */
  reminderLeadMinutes: 1440,
} as const;

/** The longest reminder lead `STUDIO_REMINDER_LEAD_MINUTES` accepts: 30 days, in minutes. */
export const MAX_REMINDER_LEAD_MINUTES = 43_200;

/** The most webhook endpoints `STUDIO_WEBHOOK_URL` lists. */
export const MAX_WEBHOOK_ENDPOINTS = 5;

/** One documented environment variable (the README's table lists every one). */
export interface EnvironmentVariable {
  /** The variable's name. */
  name: string;
  /** The value used when it is unset, in words. */
  defaultValue: string;
  /** What it sets. */
  description: string;
}

/** Every environment variable the service reads. */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: "PORT",
    defaultValue: String(SERVICE_DEFAULTS.port),
    description: "TCP port to listen on (0 picks a free one)",
  },
  { name: "HOST", defaultValue: SERVICE_DEFAULTS.host, description: "Address to listen on" },
  {
    name: "STUDIO_BASE_URL",
    defaultValue: buildLocalBaseUrl("$PORT"),
    description: "Public origin used for absolute links (docs, index, catalog, sitemap)",
  },
  {
    name: "STUDIO_KV_PATH",
    defaultValue: SERVICE_DEFAULTS.kvPath,
    description:
      "Deno KV database file, created on first start, or the http(s) URL of a KV Connect server (denokv); on Deno Deploy, unset means the platform's KV",
  },
  {
    name: "STUDIO_SMTP_URL",
    defaultValue: "unset: outgoing mail waits in the KV outbox",
    description: "SMTP server, e.g. smtp://user:pass@mail.example:587 or smtps://…:465",
  },
  {
    name: "STUDIO_MAIL_FROM",
    defaultValue: SERVICE_DEFAULTS.mailAddress,
    description: "From address of every e-mail the service sends",
  },
  {
    name: "STUDIO_INBOX",
    defaultValue: SERVICE_DEFAULTS.mailAddress,
    description: "The studio's inbox: receives inquiries and booking notices",
  },
  {
    name: "STUDIO_TEAM",
    defaultValue: "the address of STUDIO_INBOX",
    description:
      "Comma-separated e-mail addresses of the team, who sign in to the desk (/equipa, /en/team) by a link e-mailed to them",
  },
  {
    name: "STUDIO_ALLOWED_ORIGINS",
    defaultValue: "the origin of STUDIO_BASE_URL",
    description: "Comma-separated origins whose browsers may book (requests without Origin pass)",
  },
  {
    name: "STUDIO_BUSY_CALENDARS",
    defaultValue: "none",
    description: "Comma-separated http(s) URLs of iCalendar feeds whose events block slots",
  },
  {
    name: "STUDIO_CONFIRMATION",
    defaultValue: "auto",
    description: "auto: bookings are accepted at once; manual: they wait for the team",
  },
  {
    name: "STUDIO_BOOKINGS_PER_ADDRESS",
    defaultValue: String(DEFAULT_BOOKINGS_PER_ATTENDEE),
    description: "Bookings one attendee e-mail address may receive per day (UTC), whoever books",
  },
  {
    name: "STUDIO_REMINDER_LEAD_MINUTES",
    defaultValue: String(SERVICE_DEFAULTS.reminderLeadMinutes),
    description:
      `Minutes before an accepted booking's start that its attendee gets one reminder e-mail, 0 to ${MAX_REMINDER_LEAD_MINUTES}; 0: none`,
  },
  {
    name: "STUDIO_WEBHOOK_URL",
    defaultValue: "unset: no webhooks",
    description:
      `Comma-separated URLs that receive the webhook events (Standard Webhooks 1.0), at most ${MAX_WEBHOOK_ENDPOINTS}: https, or http to a loopback address (a receiver on the same machine)`,
  },
  {
    name: "STUDIO_WEBHOOK_SECRET",
    defaultValue: "unset; required with STUDIO_WEBHOOK_URL",
    description:
      "The webhooks' signing secret: whsec_ and the base64 of 24 to 64 random bytes; one for every URL, or comma-separated, one per URL in the same order",
  },
  {
    name: "STUDIO_SECRET",
    defaultValue: "generated once and kept in KV",
    description: "Key for signing the booking e-mails' links (at least 32 characters)",
  },
  {
    name: "STUDIO_TRUST_PROXY",
    defaultValue: "unset: the connection's address counts",
    description:
      "Header carrying the client address behind a reverse proxy: x-forwarded-for (rightmost), cf-connecting-ip or x-real-ip",
  },
  {
    name: "STUDIO_RATE_LIMIT_READ",
    defaultValue: String(RATE_LIMIT_POLICIES.read.limit),
    description:
      `Requests per ${RATE_LIMIT_POLICIES.read.windowSeconds} s window per client for GET/HEAD under ${API_PREFIX}/`,
  },
  {
    name: "STUDIO_RATE_LIMIT_WRITE",
    defaultValue: String(RATE_LIMIT_POLICIES.write.limit),
    description:
      `Requests per ${RATE_LIMIT_POLICIES.write.windowSeconds} s window per client for POST under ${API_PREFIX}/`,
  },
  {
    name: "STUDIO_RATE_LIMIT_BOOKING",
    defaultValue: String(RATE_LIMIT_POLICIES.booking.limit),
    description:
      `Bookings per ${RATE_LIMIT_POLICIES.booking.windowSeconds} s window per client, in addition to the write quota`,
  },
  {
    name: "STUDIO_RATE_LIMIT_STORE",
    defaultValue: "memory",
    description:
      "memory: each instance counts its own clients; kv: counters live in the store, shared by every instance on it",
  },
  {
    name: "STUDIO_LOG",
    defaultValue: "info",
    description:
      "info: one JSON line per request (method, path, status, ms); quiet: none (start, stop, warnings and errors are always logged)",
  },
  {
    name: "STUDIO_DEPRECATION",
    defaultValue: "unset: v1 is not deprecated",
    description:
      "ISO 8601 date-time from which v1 is deprecated; needs STUDIO_SUNSET and STUDIO_SUNSET_LINK",
  },
  {
    name: "STUDIO_SUNSET",
    defaultValue: "unset",
    description:
      `ISO 8601 date-time when v1 stops, at least ${MIN_SUNSET_DAYS} days after STUDIO_DEPRECATION and after the service first sends the notice`,
  },
  {
    name: "STUDIO_SUNSET_LINK",
    defaultValue: "unset",
    description: 'Absolute URL of the migration notes (Link rel="sunset")',
  },
];

/** A configuration value that cannot be used; its message names the variable. */
export class ConfigError extends Error {
  /** The variable at fault. */
  readonly variable: string;

  /**
   * @param variable The variable's name.
   * @param message What is wrong with its value and what it must be.
   */
  constructor(variable: string, message: string) {
    super(`Invalid ${variable}: ${message}`);
    this.name = "ConfigError";
    this.variable = variable;
  }
}

/**
 * The service's configuration, read from environment variables (`STUDIO_*`, `PORT`, `HOST`) and
 * checked by `readConfig`.
 */
export interface Config {
  /** TCP port, 0 to 65535. */
  port: number;
  /** Listening address. */
  host: string;
  /** Public origin, without a trailing slash. */
  baseUrl: string;
  /**
   * Whether `baseUrl` is the default `http://localhost:<port>` (STUDIO_BASE_URL unset): with
   * `PORT=0` it then names the port the system picks, known once the server listens (`runApp`).
   */
  baseUrlFollowsPort: boolean;
  /** Deno KV path or KV Connect URL; `undefined` means the platform's default KV. */
  kvPath?: string;
  /** SMTP URL, or `undefined` for "keep mail in the outbox". */
  smtpUrl?: string;
  /** From address. */
  mailFrom: string;
  /** The studio's inbox. */
  inbox: string;
  /** The team's addresses, bare and lower-cased (`STUDIO_TEAM`, else the inbox's address). */
  team: string[];
  /** Origins allowed to book from a browser. */
  allowedOrigins: string[];
  /** iCalendar feed URLs. */
  busyCalendars: string[];
  /** Confirmation mode. */
  confirmation: "auto" | "manual";
  /** Bookings per attendee address and day (`STUDIO_BOOKINGS_PER_ADDRESS`). */
  bookingsPerAttendee: number;
  /**
   * Minutes before an accepted booking's start that its attendee is reminded
   * (`STUDIO_REMINDER_LEAD_MINUTES`); 0: no reminders.
   */
  reminderLeadMinutes: number;
  /**
   * The webhook endpoints (`STUDIO_WEBHOOK_URL`, `STUDIO_WEBHOOK_SECRET`): each URL with the
   * secret its events are signed with; absent when webhooks are off.
   */
  webhooks?: Array<{ url: string; secret: string }>;
  /** Link-signing secret, if configured. */
  secret?: string;
  /** Trusted proxy header. */
  trustProxy?: TrustedProxyHeader;
  /** Quotas per window. */
  rateLimits: { read: number; write: number; booking: number };
  /** Where rate-limit counters live: in the process, or in the store (shared by instances). */
  rateLimitStore: "memory" | "kv";
  /** `info`: a line per request, at start and at stop; `quiet`: warnings and errors only. */
  log: "info" | "quiet";
  /** Deprecation notice of v1. */
  deprecation?: DeprecationNotice;
}

/** The environment as a plain record, as `Deno.env.toObject()` or `process.env` give it. */
export type Environment = Readonly<Record<string, string | undefined>>;

function readText(env: Environment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function readWhole(env: Environment, name: string, fallback: number, min: number, max: number) {
  const value = readText(env, name);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(name, `"${value}" is not a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/** A quota or count: a whole number from 1 to a billion. */
function readCount(env: Environment, name: string, fallback: number): number {
  return readWhole(env, name, fallback, 1, 1_000_000_000);
}

function readHttpUrl(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${value}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(name, `"${value}" is not an http or https URL`);
  }
  return url;
}

function readAddress(env: Environment, name: string, fallback: string): string {
  const value = readText(env, name) ?? fallback;
  // Accept "Studio <studio@example.pt>" as well as a bare address.
  const address = /<([^<>]+)>\s*$/.exec(value)?.[1] ?? value;
  if (!isEmailAddress(address) || /[\r\n]/.test(value)) {
    throw new ConfigError(
      name,
      `${JSON.stringify(value)} is not an e-mail address such as studio@example.pt`,
    );
  }
  return value;
}

/**
 * The team's addresses: `STUDIO_TEAM`, else the inbox's; bare (a display name is dropped) and
 * lower-cased, since a sign-in request compares addresses without regard to case.
 */
function readTeam(env: Environment, inbox: string): string[] {
  const listed = (readText(env, "STUDIO_TEAM") ?? "").split(",").map((item) => item.trim())
    .filter(Boolean);
  const addresses = (listed.length ? listed : [inbox]).map((value) =>
    (/<([^<>]+)>\s*$/.exec(value)?.[1] ?? value).toLowerCase()
  );
  for (const address of addresses) {
    if (!isEmailAddress(address)) {
      throw new ConfigError(
        "STUDIO_TEAM",
        `${JSON.stringify(address)} is not an e-mail address such as ana@studio.example`,
      );
    }
  }
  return [...new Set(addresses)];
}

function readList(env: Environment, name: string): string[] {
  return (readText(env, name) ?? "").split(/[\s,]+/).filter(Boolean);
}

function readDeprecation(env: Environment): DeprecationNotice | undefined {
  const names = ["STUDIO_DEPRECATION", "STUDIO_SUNSET", "STUDIO_SUNSET_LINK"] as const;
  const values = names.map((name) => readText(env, name));
  if (values.every((value) => value === undefined)) return undefined;
  const missing = names.find((_, index) => values[index] === undefined);
  if (missing) {
    throw new ConfigError(
      missing,
      "it is required when any of STUDIO_DEPRECATION, STUDIO_SUNSET and STUDIO_SUNSET_LINK is set",
    );
  }
  const notice = {
    deprecatedAt: values[0] as string,
    sunsetAt: values[1] as string,
    migrationUrl: values[2] as string,
  };
  const variables: Record<string, string> = {
    deprecatedAt: "STUDIO_DEPRECATION",
    sunsetAt: "STUDIO_SUNSET",
    migrationUrl: "STUDIO_SUNSET_LINK",
  };
  try {
    buildVersionHeaders(notice);
  } catch (error) {
    // buildVersionHeaders names the notice's field first ("Invalid sunsetAt: …"): map it back.
    const message = error instanceof Error ? error.message : String(error);
    const [, field = "sunsetAt", detail = message] = /^Invalid (\w+): (.*)$/s.exec(message) ?? [];
    const named = detail.replace(/deprecatedAt/g, "STUDIO_DEPRECATION");
    throw new ConfigError(variables[field] ?? "STUDIO_SUNSET", named);
  }
  return notice;
}

/** The public origin: STUDIO_BASE_URL, or `http://localhost:<port>` when it is unset. */
function readBaseUrl(env: Environment, port: number): URL {
  const baseUrl = readHttpUrl(
    "STUDIO_BASE_URL",
    readText(env, "STUDIO_BASE_URL") ?? buildLocalBaseUrl(port),
  );
  if (baseUrl.pathname !== "/" || baseUrl.search || baseUrl.hash) {
    throw new ConfigError(
      "STUDIO_BASE_URL",
      `"${baseUrl.href}" must be an origin without a path, such as https://studio.example`,
    );
  }
  return baseUrl;
}

function readSmtpUrl(env: Environment): string | undefined {
  const smtpUrl = readText(env, "STUDIO_SMTP_URL");
  if (smtpUrl === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(smtpUrl);
  } catch { /* reported below */ }
  if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || !url.hostname) {
    throw new ConfigError(
      "STUDIO_SMTP_URL",
      `"${smtpUrl}" is not an smtp:// or smtps:// URL with a host`,
    );
  }
  return smtpUrl;
}

/** One of two words, the first by default; `lowerCase` accepts them in any case. */
function readEither<T extends string>(
  env: Environment,
  name: string,
  choices: readonly [T, T],
  options: { lowerCase: boolean },
): T {
  const text = readText(env, name);
  const value = (options.lowerCase ? text?.toLowerCase() : text) ?? choices[0];
  for (const choice of choices) if (value === choice) return choice;
  throw new ConfigError(name, `"${value}" is not "${choices[0]}" or "${choices[1]}"`);
}

function readSecret(env: Environment): string | undefined {
  const secret = readText(env, "STUDIO_SECRET");
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError("STUDIO_SECRET", `it has ${secret.length} characters; use at least 32`);
  }
  return secret;
}

/** Whether a URL's host is a loopback address: `localhost`, `127.0.0.0/8` or `[::1]`. */
function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A webhook endpoint's URL: https, or http to a loopback address; no user name or password. */
function readWebhookUrl(value: string): string {
  const name = "STUDIO_WEBHOOK_URL";
  const url = readHttpUrl(name, value);
  if (url.protocol === "http:" && !isLoopback(url)) {
    throw new ConfigError(
      name,
      `"${value}" is not https: events carry personal data, so plain http is only for a receiver on a loopback address (localhost, 127.0.0.1, [::1])`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(name, `"${url.origin}" holds a user name or password; leave them out`);
  }
  return url.href;
}

/**
 * Whether a signing secret is as Standard Webhooks writes one: `whsec_` and the base64 of 24 to
 * 64 bytes.
 */
function isWebhookSecret(secret: string): boolean {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!match || match[1].length % 4 !== 0) return false;
  const bytes = atob(match[1]).length;
  return bytes >= 24 && bytes <= 64;
}

/** The webhook endpoints: each URL of STUDIO_WEBHOOK_URL with its STUDIO_WEBHOOK_SECRET. */
function readWebhooks(env: Environment): Array<{ url: string; secret: string }> {
  const urls = readList(env, "STUDIO_WEBHOOK_URL").map(readWebhookUrl);
  const secrets = (readText(env, "STUDIO_WEBHOOK_SECRET") ?? "").split(",")
    .map((item) => item.trim()).filter(Boolean);
  const name = "STUDIO_WEBHOOK_SECRET";
  if (!urls.length) {
    if (secrets.length) throw new ConfigError(name, "it is set, but STUDIO_WEBHOOK_URL is not");
    return [];
  }
  if (urls.length > MAX_WEBHOOK_ENDPOINTS) {
    throw new ConfigError(
      "STUDIO_WEBHOOK_URL",
      `it lists ${urls.length} URLs; at most ${MAX_WEBHOOK_ENDPOINTS}`,
    );
  }
  const repeated = urls.find((url, index) => urls.indexOf(url) !== index);
  if (repeated) throw new ConfigError("STUDIO_WEBHOOK_URL", `"${repeated}" is listed twice`);
  if (!secrets.length) {
    throw new ConfigError(
      name,
      "it is required when STUDIO_WEBHOOK_URL is set: whsec_ and the base64 of 24 to 64 random bytes",
    );
  }
  if (secrets.length !== 1 && secrets.length !== urls.length) {
    throw new ConfigError(
      name,
      `it lists ${secrets.length} secrets for ${urls.length} URLs; give one for all, or one per URL`,
    );
  }
  // The secret itself is never part of the message: start-up errors reach logs.
  const bad = secrets.findIndex((secret) => !isWebhookSecret(secret));
  if (bad >= 0) {
    throw new ConfigError(
      name,
      `${
        secrets.length > 1 ? `secret ${bad + 1}` : "the secret"
      } is not whsec_ and the base64 of 24 to 64 bytes (Standard Webhooks), e.g. whsec_ and the output of openssl rand -base64 32`,
    );
  }
  return urls.map((url, index) => ({
    url,
    secret: secrets.length === 1 ? secrets[0] : secrets[index],
  }));
}

/** The reminder lead in minutes: a whole number from 0 (no reminders) to 30 days. */
function readReminderLead(env: Environment): number {
  const name = "STUDIO_REMINDER_LEAD_MINUTES";
  const value = readText(env, name);
  if (value === undefined) return SERVICE_DEFAULTS.reminderLeadMinutes;
  if (!/^\d+$/.test(value) || Number(value) > MAX_REMINDER_LEAD_MINUTES) {
    throw new ConfigError(
      name,
      `"${value}" is not a whole number of minutes from 0 (no reminders) to ${MAX_REMINDER_LEAD_MINUTES} (30 days)`,
    );
  }
  return Number(value);
}

function readTrustProxy(env: Environment): TrustedProxyHeader | undefined {
  const trustProxy = readText(env, "STUDIO_TRUST_PROXY")?.toLowerCase();
  if (
    trustProxy !== undefined && !(TRUSTED_PROXY_HEADERS as readonly string[]).includes(trustProxy)
  ) {
    throw new ConfigError(
      "STUDIO_TRUST_PROXY",
      `"${trustProxy}" is not one of ${TRUSTED_PROXY_HEADERS.join(", ")}`,
    );
  }
  return trustProxy as TrustedProxyHeader | undefined;
}

/**
 * Reads and checks the configuration from environment variables.
 *
 * @param env The environment, e.g. `Deno.env.toObject()`.
 * @param options `onDenoDeploy`: whether to leave `kvPath` unset by default (the platform's KV).
 * @returns The configuration with every default applied.
 * @throws {ConfigError} At the first bad value, naming the variable.
 */
export function readConfig(env: Environment, options: { onDenoDeploy?: boolean } = {}): Config {
  // The variables are checked in this order, so the first bad one is the one reported.
  const port = readWhole(env, "PORT", SERVICE_DEFAULTS.port, 0, 65535);
  const host = readText(env, "HOST") ?? SERVICE_DEFAULTS.host;
  const baseUrl = readBaseUrl(env, port);
  const kvPath = readText(env, "STUDIO_KV_PATH") ??
    (options.onDenoDeploy ? undefined : SERVICE_DEFAULTS.kvPath);
  const smtpUrl = readSmtpUrl(env);
  const allowedOrigins = readList(env, "STUDIO_ALLOWED_ORIGINS").map((value) =>
    readHttpUrl("STUDIO_ALLOWED_ORIGINS", value).origin
  );
  const busyCalendars = readList(env, "STUDIO_BUSY_CALENDARS").map((value) =>
    readHttpUrl("STUDIO_BUSY_CALENDARS", value).href
  );
  const confirmation = readEither(env, "STUDIO_CONFIRMATION", ["auto", "manual"], {
    lowerCase: false,
  });
  const webhooks = readWebhooks(env);
  const secret = readSecret(env);
  const trustProxy = readTrustProxy(env);
  const rateLimitStore = readEither(env, "STUDIO_RATE_LIMIT_STORE", ["memory", "kv"], {
    lowerCase: true,
  });
  const log = readEither(env, "STUDIO_LOG", ["info", "quiet"], { lowerCase: true });
  const mailFrom = readAddress(env, "STUDIO_MAIL_FROM", SERVICE_DEFAULTS.mailAddress);
  const inbox = readAddress(env, "STUDIO_INBOX", SERVICE_DEFAULTS.mailAddress);
  return {
    port,
    host,
    baseUrl: baseUrl.origin,
    baseUrlFollowsPort: readText(env, "STUDIO_BASE_URL") === undefined,
    kvPath,
    smtpUrl,
    mailFrom,
    inbox,
    team: readTeam(env, inbox),
    allowedOrigins: allowedOrigins.length ? allowedOrigins : [baseUrl.origin],
    busyCalendars,
    confirmation,
    bookingsPerAttendee: readCount(
      env,
      "STUDIO_BOOKINGS_PER_ADDRESS",
      DEFAULT_BOOKINGS_PER_ATTENDEE,
    ),
    reminderLeadMinutes: readReminderLead(env),
    ...(webhooks.length ? { webhooks } : {}),
    secret,
    trustProxy,
    rateLimits: {
      read: readCount(env, "STUDIO_RATE_LIMIT_READ", RATE_LIMIT_POLICIES.read.limit),
      write: readCount(env, "STUDIO_RATE_LIMIT_WRITE", RATE_LIMIT_POLICIES.write.limit),
      booking: readCount(env, "STUDIO_RATE_LIMIT_BOOKING", RATE_LIMIT_POLICIES.booking.limit),
    },
    rateLimitStore,
    log,
    deprecation: readDeprecation(env),
  };
}
