/**
 * The fetch handler of the studio's website: the route table compiled by itty-router, one
 * dispatch over it (count → answer → finish, or the error stage), every side effect injected.
 *
 * @module
 */
import { Router } from "itty-router";
import { ApiError, toErrorResponse } from "../contract/api_error.ts";
import { type ConnectionInfo, readClientKey, type TrustedProxyHeader } from "./client_address.ts";
import {
  OPENAPI_PATH,
  type PolicyName,
  RATE_LIMIT_POLICIES,
  type RateLimitPolicy,
} from "../contract/contract.ts";
import { JSON_TYPE, type JsonAnswer } from "./json_response.ts";
import { createMemoryStore } from "../store/memory_store.ts";
import {
  buildPolicyHeader,
  createRateLimiter,
  type RateLimitDecision,
  type RateLimiter,
  setRateLimitHeaders,
} from "./rate_limit.ts";
import { readPathname, type RequestContext, type RouteDefinition } from "./route.ts";
import type { Clock, Logger, Services } from "../services.ts";
import type { Store } from "../store/store.ts";
import { buildVersionHeaders, type DeprecationNotice, formatLink } from "./versioning.ts";
import { apiIndexRoutes } from "../../routes/api_index.ts";
import { discoveryRoutes } from "../../routes/discovery.ts";
import { healthRoutes } from "../../routes/health.ts";
import { contactRoutes } from "../../routes/contact.ts";
import { bookingRoutes } from "../../routes/booking.ts";
import { bookingActionRoutes } from "../../routes/booking_actions.ts";
import { type BusyCalendar, NO_BUSY_CALENDAR } from "../availability/busy_calendar.ts";
import { DEFAULT_SCHEDULE, readSchedule, type ScheduleSettings } from "../availability/schedule.ts";
import { createSlotFinder } from "../availability/slots.ts";
import { createLinkSigner } from "../booking/signed_links.ts";
import { readOrCreateSecret } from "../store/secret.ts";
import type { Mailer } from "../mail/mail.ts";
import { createMemoryMailer } from "../mail/memory_mailer.ts";
import { createOutbox, type Outbox } from "../mail/outbox.ts";
import { checkCorpus, type Corpus } from "../site/corpus.ts";
import { CORPUS } from "../../content/corpus.generated.ts";
import { answerSiteFallback, contentRoutes } from "../../routes/content.ts";
import { contactFormRoutes } from "../../routes/contact_form.ts";

/** Options of {@linkcode createHandler}; every one is optional. */
export interface HandlerOptions {
  /**
   * The public origin for absolute links (`docs`, the index, the catalog), without a path.
   * @default {"http://localhost:8000"}
   */
  baseUrl?: string;
  /**
   * The store. @default {createMemoryStore()}: `@deno/kv`'s in-memory KV, opened on first use
   * (test grade: data is lost on exit)
   */
  store?: Store;
  /** The clock. @default {the system clock} */
  clock?: Clock;
  /** The logger. @default {JSON lines on the console} */
  logger?: Logger;
  /**
   * The header that carries the client address behind a trusted reverse proxy. Unset, the
   * connection's address counts and forwarding headers are ignored.
   */
  trustProxy?: TrustedProxyHeader;
  /** Quotas per window, by policy name. @default {{ read: 120, write: 10, booking: 5 }} */
  rateLimits?: Partial<Record<PolicyName, number>>;
  /**
   * A rate limiter of your own, for example `createKvRateLimiter({ store })`, whose counters the
   * instances on one store share. @default {createRateLimiter()} (counts in the process)
   */
  rateLimiter?: RateLimiter;
  /** Announces the deprecation of v1 (RFC 9745, RFC 8594). */
  deprecation?: DeprecationNotice;
  /**
   * The mailer the default outbox sends with. @default {createMemoryMailer()} (test grade: mail
   * is kept in memory)
   */
  mailer?: Mailer;
  /**
   * An outbox of your own (see `createOutbox`), e.g. one the composition root starts and stops;
   * it must use the same store. Without one, an outbox over `store` and `mailer` is created and
   * delivers right after each commit.
   */
  outbox?: Outbox;
  /** The booking schedule. @default {the settings of `content/schedule.json`} */
  schedule?: ScheduleSettings;
  /**
   * The calendars whose events block slots (see `createIcsCalendar`). @default {no calendar}
   */
  busyCalendar?: BusyCalendar;
  /** `auto`: bookings are accepted at once; `manual`: they wait for the team. @default {"auto"} */
  confirmation?: "auto" | "manual";
  /**
   * Origins whose browsers may book; a request without `Origin` is always accepted.
   * @default {[the origin of baseUrl]}
   */
  allowedOrigins?: readonly string[];
  /**
   * The key that signs confirm, decline and cancel links (at least 32 characters).
   * @default {one generated once and kept in the store}
   */
  secret?: string;
  /** From address of outgoing e-mail. @default {"studio@localhost"} */
  mailFrom?: string;
  /** The studio's inbox for inquiries and booking notices. @default {"studio@localhost"} */
  inbox?: string;
  /**
   * The site's content (see `Corpus`), checked once here.
   * @default {the studio's corpus, compiled from content/ into content/corpus.generated.ts}
   */
  content?: Corpus;
}

/** Connection details a server passes with each request (as `Deno.ServeHandlerInfo` does). */
export type HandlerInfo = ConnectionInfo;

/** The handler: a Web `Request` in, a `Response` out. It never rejects. */
export type Handler = (request: Request, info?: HandlerInfo) => Promise<Response>;

/** The system clock (`Temporal.Now`); where it is the clock, hot paths read `Date.now()`. */
export const SYSTEM_CLOCK: Clock = { now: () => Temporal.Now.instant() };

function log(
  write: (line: string) => void,
  level: string,
  message: string,
  fields?: Record<string, unknown>,
): void {
  write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
}

/** The default logger: one JSON object per line, errors and warnings on standard error. */
export const CONSOLE_LOGGER: Logger = {
  info: (message, fields) => log(console.log, "info", message, fields),
  warn: (message, fields) => log(console.error, "warn", message, fields),
  error: (message, fields) => log(console.error, "error", message, fields),
};

function readBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`Invalid baseUrl: "${value}" is not an absolute URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError(`Invalid baseUrl: "${value}" is not an http(s) URL`);
  }
  return url.origin;
}

function resolvePolicies(
  limits: Partial<Record<PolicyName, number>> = {},
): Record<PolicyName, RateLimitPolicy> {
  const policies = { ...RATE_LIMIT_POLICIES };
  for (const name of Object.keys(policies) as PolicyName[]) {
    const limit = limits[name];
    if (limit === undefined) continue;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(
        `Invalid rateLimits.${name}: ${limit} is not a whole number of at least 1`,
      );
    }
    policies[name] = { ...policies[name], limit };
  }
  return policies;
}

/**
 * Resolves the options into the frozen services that route factories close over.
 *
 * @throws {TypeError | RangeError} When an option is invalid.
 */
export function resolveServices(options: HandlerOptions): Services {
  const clock = options.clock ?? SYSTEM_CLOCK;
  const nowMilliseconds = clock === SYSTEM_CLOCK ? Date.now : () => clock.now().epochMilliseconds;
  const baseUrl = readBaseUrl(options.baseUrl ?? "http://localhost:8000");
  const store = options.store ?? createMemoryStore();
  const logger = options.logger ?? CONSOLE_LOGGER;
  const schedule = options.schedule ? readSchedule(options.schedule) : DEFAULT_SCHEDULE;
  const busyCalendar = options.busyCalendar ?? NO_BUSY_CALENDAR;
  return Object.freeze({
    baseUrl,
    docsUrl: baseUrl + OPENAPI_PATH,
    store,
    clock,
    nowMilliseconds,
    logger,
    schedule,
    busyCalendar,
    slotFinder: createSlotFinder({ settings: schedule, busyCalendar, store, nowMilliseconds }),
    booking: {
      confirmation: options.confirmation ?? "auto",
      allowedOrigins: new Set(options.allowedOrigins ?? [baseUrl]),
    },
    linkSigner: createLinkSigner(() => readOrCreateSecret(store, options.secret)),
    outbox: options.outbox ??
      createOutbox({ store, mailer: options.mailer ?? createMemoryMailer(), clock, logger }),
    mail: {
      from: options.mailFrom ?? "studio@localhost",
      inbox: options.inbox ?? "studio@localhost",
      messageIdDomain: new URL(baseUrl).hostname,
    },
    rateLimiter: options.rateLimiter ?? createRateLimiter({ nowMilliseconds }),
    policies: Object.freeze(resolvePolicies(options.rateLimits)),
    trustProxy: options.trustProxy,
    versionHeaders: Object.freeze(buildVersionHeaders(options.deprecation)),
    content: options.content ? checkCorpus(options.content) : CORPUS,
  });
}

const API_PREFIX = "/api";

function isApiPath(pathname: string): boolean {
  return pathname === API_PREFIX || pathname.startsWith(API_PREFIX + "/");
}

/**
 * Adds a field to a header record; a second value of a list field such as `Link` joins the
 * first as one comma-separated list (RFC 9110, section 5.3).
 */
function addField(headers: Record<string, string>, name: string, value: string): void {
  const present = headers[name];
  headers[name] = present === undefined ? value : `${present}, ${value}`;
}

/** Builds the complete route table of a handler (exported for the OpenAPI coverage test). */
export function buildRouteTable(services: Services): RouteDefinition[] {
  const table: RouteDefinition[] = [];
  table.push(
    ...apiIndexRoutes(services, table),
    ...healthRoutes(services),
    ...contactRoutes(services),
    ...bookingRoutes(services),
    ...bookingActionRoutes(services),
    ...discoveryRoutes(services),
    ...contactFormRoutes(services),
    ...contentRoutes(services),
  );
  return table;
}

/**
 * Creates the fetch handler of the studio's website and API v1.
 *
 * With no options it works on test-grade defaults: an in-memory store, the system clock and a
 * console logger. The composition roots (`main.ts` and the runtime entries) pass the durable
 * store and the real mailer.
 *
 * @param options Injected services and settings.
 * @returns The handler; it answers every request, errors included, and never rejects.
 * @throws {TypeError | RangeError} When an option is invalid (a bad base URL, quota or notice).
 *
 * @example
 * ```ts
 * import { createHandler } from "./create_handler.ts";
 * const handler = createHandler();
 * const response = await handler(new Request("http://localhost/api/v1/health"));
 * console.log(response.status); // 200
 * ```
 */
export function createHandler(options: HandlerOptions = {}): Handler {
  const services = resolveServices(options);
  const table = buildRouteTable(services);
  /** A set of policies with its `RateLimit-Policy` value, serialised once. */
  interface Quota {
    policies: readonly RateLimitPolicy[];
    policyHeader: string;
  }
  function buildQuota(policies: readonly RateLimitPolicy[]): Quota {
    return { policies, policyHeader: buildPolicyHeader(policies) };
  }
  const readQuota = buildQuota([services.policies.read]);
  const writeQuota = buildQuota([services.policies.write]);

  /**
   * Counts the request against a quota; throws (or, with a shared limiter, rejects) 429
   * `rate-limited` when one is exhausted. The in-process limiter decides synchronously, and this
   * hot path then awaits nothing.
   */
  function countRequest(quota: Quota, context: RequestContext): void | Promise<void> {
    const decision = services.rateLimiter.consume(context.clientKey, quota.policies);
    if (decision instanceof Promise) {
      return decision.then((settled) => applyDecision(quota, context, settled));
    }
    applyDecision(quota, context, decision);
  }

  function applyDecision(quota: Quota, context: RequestContext, decision: RateLimitDecision) {
    context.rateLimit = decision;
    context.rateLimitPolicy = quota.policyHeader;
    if (decision.exceeded) {
      throw new ApiError("rate-limited", {
        status: 429,
        message: "Too many requests from this client",
        hint: "Wait the number of seconds in Retry-After, then retry",
      });
    }
  }

  /**
   * The fields every `/api/` response carries whatever its rate limit: `Content-Type`,
   * `API-Version` and the deprecation notice, if any (several `Link` fields joined into one
   * list).
   */
  const apiFields: Record<string, string> = { "Content-Type": JSON_TYPE };
  for (const [name, value] of services.versionHeaders) addField(apiFields, name, value);
  /** Per route of an alias: {@linkcode apiFields} and `Link; rel="latest-version"`. */
  const aliasFields = new Map<RouteDefinition, Record<string, string>>();
  for (const route of table) {
    if (!route.latestVersion) continue;
    const fields = { ...apiFields };
    addField(fields, "Link", formatLink(route.latestVersion, "latest-version"));
    aliasFields.set(route, fields);
  }

  /**
   * Builds the `Response` of an `/api/` request in one construction: the answer's body and
   * status, the route's fixed fields ({@linkcode apiFields}, on an alias with its `Link`), the
   * answer's headers (a name present in both is joined as a list), and the rate-limit fields of
   * the request's decision. HEAD gets the same head, no body.
   */
  function toApiResponse(answer: JsonAnswer, request: Request, context: RequestContext): Response {
    const route = context.route;
    const headers = { ...(route?.latestVersion && aliasFields.get(route) || apiFields) };
    if (answer.headers) {
      for (const name in answer.headers) addField(headers, name, answer.headers[name]);
    }
    const decision = context.rateLimit;
    if (decision) {
      headers["RateLimit-Policy"] = context.rateLimitPolicy ?? "";
      setRateLimitHeaders(headers, decision);
    }
    const body = request.method === "HEAD"
      ? null
      : typeof answer.body === "string"
      ? answer.body
      : JSON.stringify(answer.body);
    return new Response(body, { status: answer.status ?? 200, headers });
  }

  /**
   * The error stage, the one place where a failure becomes a response: an `ApiError` as its
   * ErrorResponse (under `/api/`) or as plain text (on the site); anything else as 500
   * `internal-error`, its detail logged and never sent.
   */
  function answerError(error: unknown, request: Request, context: RequestContext): Response {
    if (!(error instanceof ApiError)) {
      services.logger.error("Unexpected failure", {
        method: request.method,
        path: context.pathname,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
    const answer = toErrorResponse(error, services.docsUrl);
    if (isApiPath(context.pathname)) return toApiResponse(answer, request, context);
    return new Response(request.method === "HEAD" ? null : answer.body.error.message, {
      status: answer.status,
      headers: { ...answer.headers, "Content-Type": "text/plain; charset=utf-8" },
    });
  }

  // itty-router compiles the route table (its path syntax into `router.routes`); the handler
  // below walks those routes itself rather than calling `router.fetch`, which parses every URL
  // and its query string again and awaits each stage: about 2 µs per request, an eighth of a
  // health check (scripts/bench_health.ts).
  const router = Router<Request, [RequestContext], Response>();

  /**
   * Turns what a route answered into the response: an operation's {@linkcode JsonAnswer}
   * through {@linkcode toApiResponse}; a `Response` as it is, without its body for HEAD.
   */
  function finish(
    result: Response | JsonAnswer | Promise<Response | JsonAnswer>,
    request: Request,
    context: RequestContext,
  ): Response | Promise<Response> {
    if (result instanceof Promise) {
      return result.then((settled) => finish(settled, request, context));
    }
    if (!(result instanceof Response)) return toApiResponse(result, request, context);
    if (request.method === "HEAD" && result.body) {
      return new Response(null, { status: result.status, headers: result.headers });
    }
    return result;
  }

  for (const route of table) {
    const quota = route.operation &&
      buildQuota(route.operation.policies.map((name) => services.policies[name]));
    const handle = route.handle;
    // One handler per route that counts, answers and finishes: a route answered synchronously
    // (health, the index) awaits nothing on the way.
    const serve = (request: Request, context: RequestContext) => {
      context.route = route;
      const counting = quota && countRequest(quota, context);
      return counting
        ? counting.then(() => finish(handle(request, context), request, context))
        : finish(handle(request, context), request, context);
    };
    // HEAD is matched as GET (see dispatch below), so each GET route is one entry.
    if (route.method === "GET") router.get(route.path, serve);
    else router.post(route.path, serve);
  }

  router.all("*", (request: Request, context: RequestContext) => {
    const pathname = context.pathname;
    const allowed = new Set<string>();
    // router.routes holds the table's routes in order, one entry each, then this one.
    router.routes.forEach(([method, pattern], index) => {
      if (method === "ALL" || !pattern.test(pathname)) return;
      allowed.add(method);
      if (method === "GET") allowed.add("HEAD");
      // An alias path answers with its Link rel="latest-version" whatever the method.
      if (table[index].latestVersion) context.route = table[index];
    });
    const allow = [...allowed].join(", ");
    if (!isApiPath(pathname)) {
      return finish(answerSiteFallback(services, request, context, allow), request, context);
    }
    const safe = request.method === "GET" || request.method === "HEAD";
    const counting = countRequest(safe ? readQuota : writeQuota, context);
    return counting
      ? counting.then(() => refuse(request, pathname, allow))
      : refuse(request, pathname, allow);
  });

  /** Answers a path of the API without an operation: 405 when other methods exist, else 404. */
  function refuse(request: Request, pathname: string, allow: string): never {
    if (allow) {
      throw new ApiError("not-found", {
        status: 405,
        message: `Method ${request.method} is not allowed at "${pathname}"`,
        hint: `Use ${allow}; see /api/v1 for every operation`,
        headers: { Allow: allow },
      });
    }
    throw new ApiError("not-found", {
      status: 404,
      message: `No operation at "${pathname}"`,
      hint: "See /api/v1 for every operation of the API",
    });
  }

  const routes = router.routes;

  /**
   * Answers with the first route whose method and pattern match; the route `ALL *` registered
   * last matches everything. HEAD matches the GET routes, and `finish` drops their body.
   */
  function dispatch(
    request: Request,
    context: RequestContext,
    method: string,
  ): Response | Promise<Response> {
    const pathname = context.pathname;
    for (let index = 0; index < routes.length; index++) {
      const [routeMethod, pattern, handlers] = routes[index];
      if ((routeMethod === method || routeMethod === "ALL") && pattern.test(pathname)) {
        // Each route has exactly one handler (registered above), typed by its own signature.
        return handlers[0](request as never, context);
      }
    }
    throw new Error(`No route for ${method} ${pathname}`); // unreachable: ALL * matches
  }

  /** The error stage, or — should it fail itself — a bare 500: the handler never rejects. */
  function recover(error: unknown, request: Request, context: RequestContext): Response {
    try {
      return answerError(error, request, context);
    } catch (failure) {
      return answerFailure(failure);
    }
  }

  /**
   * A bare 500 for a failure before routing or in the error stage itself: the ErrorResponse with
   * the fields every API response carries whatever its rate limit ({@linkcode apiFields}).
   */
  function answerFailure(error: unknown): Response {
    services.logger.error("Unexpected failure outside the route handlers", {
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    const body = JSON.stringify(toErrorResponse(error, services.docsUrl).body);
    return new Response(body, { status: 500, headers: apiFields });
  }

  return (request, info) => {
    let context: RequestContext | undefined;
    try {
      context = {
        pathname: readPathname(request.url),
        clientKey: readClientKey(request, info, services.trustProxy),
      };
      const method = request.method;
      const result = dispatch(request, context, method === "HEAD" ? "GET" : method);
      if (!(result instanceof Promise)) return Promise.resolve(result);
      const settledContext = context;
      return result.then(undefined, (error) => recover(error, request, settledContext));
    } catch (error) {
      return Promise.resolve(context ? recover(error, request, context) : answerFailure(error));
    }
  };
}
