/**
 * The request pipeline, itty-router's model with its stages as data: match → count → check the
 * Origin of a POST → answer → finish, and one catch (a CORS preflight for a public read is
 * answered before counting). Every route of the one table is prepared once into a stage function,
 * so a request answered synchronously (health, the index) awaits nothing on the way; a lazy
 * route's module is loaded by its first request, after counting.
 *
 * @module
 */
import { ApiError } from "../contract/api_error.ts";
import type { PolicyName, RateLimitPolicy } from "../contract/contract.ts";
import type { Logger } from "../ports.ts";
import {
  type ConnectionInfo,
  createClientKeyReader,
  type TrustedProxyHeader,
} from "./client_address.ts";
import { type ApiResponder, createApiResponder } from "./create_api_responder.ts";
import { createOriginCheck } from "./check_origin.ts";
import { answerPreflight, isReadPreflight } from "./cors.ts";
import { createSecurityHeaders } from "./security_headers.ts";
import { createErrorStage, isApiPath } from "./create_error_stage.ts";
import {
  createRequestCounter,
  type Quota,
  type RequestCounter,
  toRateLimitedError,
  toRetryAfterSeconds,
} from "./create_request_counter.ts";
import { createRouteMatcher, type RouteMatcher } from "./create_route_matcher.ts";
import { loadOnce } from "../load_once.ts";
import { isTracingOn, nameServerSpan, traceRequests } from "../telemetry/telemetry.ts";
import type { RateLimitDecision, RateLimiter } from "./rate_limit.ts";
import {
  readPathname,
  type RequestContext,
  type RouteDefinition,
  type RouteHandlers,
} from "./route.ts";

/** Connection details a server passes with each request (as `Deno.ServeHandlerInfo` does). */
export type HandlerInfo = ConnectionInfo;

/**
 * What the handler returns: a promise of the response that, when the response was ready as the
 * handler returned (every route answered synchronously: health, the API index, prepared pages),
 * also holds it as `response`. A server can then write that response without waiting for a turn
 * of the microtask queue: `@hono/node-server` writes a `Response` at once but takes a slower path
 * for a promise (a close listener and three awaits per request), and `Deno.serve` and
 * `Bun.serve` take either. Awaited, it is a plain promise.
 */
export interface ResponsePromise extends Promise<Response> {
  /** The response, when it was ready as the handler returned. */
  readonly response?: Response;
}

/** The handler: a Web `Request` in, a `Response` out. It never rejects. */
export type Handler = (request: Request, info?: HandlerInfo) => ResponsePromise;

/**
 * A response that is ready, as a {@linkcode ResponsePromise}.
 *
 * @param response The response.
 * @returns A promise fulfilled with `response`, holding it as `response`.
 */
export function toResponsePromise(response: Response): ResponsePromise {
  const promise: Promise<Response> & { response?: Response } = Promise.resolve(response);
  promise.response = response;
  return promise;
}

/**
 * Answers a path outside `/api/` that no route serves with this method (the site's 404 page, or
 * its 405 page when `allow` is not empty).
 */
export type FallbackHandler = (
  request: Request,
  context: RequestContext,
  allow: string,
) => Response | Promise<Response>;

/** What the pipeline is built from: the route table and the services its stages use. */
export interface PipelineOptions {
  /** The route table: every route of the API and the site, in the order they are tried. */
  table: readonly RouteDefinition[];
  /** Answers unmatched paths outside `/api/`. */
  fallback: FallbackHandler;
  /** Keeps the rate-limit counters. */
  rateLimiter: RateLimiter;
  /** The rate-limit policies with the operator's quotas. */
  policies: Readonly<Record<PolicyName, RateLimitPolicy>>;
  /** The header trusted for the client address, if any. */
  trustProxy?: TrustedProxyHeader;
  /** The origins whose pages may POST; any other `Origin` on a POST is refused with 403. */
  allowedOrigins: ReadonlySet<string>;
  /** The site's public origin, named in the 403's hint; with https, answers carry HSTS. */
  baseUrl: string;
  /** `API-Version` and the deprecation notice's fields, sent on every `/api/` answer. */
  versionHeaders: ReadonlyArray<readonly [string, string]>;
  /** Absolute URL of the OpenAPI document, for ErrorResponse `docs`. */
  docsUrl: string;
  /** Where unexpected failures are logged. */
  logger: Logger;
}

type Stage = (request: Request, context: RequestContext) => Response | Promise<Response>;

/**
 * The handlers of a lazy route: its module is loaded by the route's first request (and again by
 * the next one if that load failed), then every request goes straight to the loaded handlers.
 */
function toLazyHandlers(load: () => Promise<RouteHandlers>): RouteHandlers {
  const loaded = loadOnce(load);
  let ready: RouteHandlers | undefined;
  const settle = async () => ready ??= await loaded();
  return {
    handle: (request, context) =>
      ready ? ready.handle(request, context) : settle().then((h) => h.handle(request, context)),
    answerRateLimited: async (request, context, retryAfterSeconds) => {
      const handlers = await settle();
      if (!handlers.answerRateLimited) throw toRateLimitedError();
      return await handlers.answerRateLimited(request, context, retryAfterSeconds);
    },
    answerRefused: async (request, context, error) => {
      const handlers = await settle();
      if (!handlers.answerRefused) throw error;
      return await handlers.answerRefused(request, context, error);
    },
  };
}

/** What the stages of one pipeline share, made once with it. */
interface PipelineParts {
  responder: ApiResponder;
  counter: RequestCounter;
  checkOrigin: (request: Request) => void;
}

/** A route of the table with its prepared stage, as the matcher holds it. */
interface MatchedRoute {
  method: RouteDefinition["method"];
  path: string;
  route: RouteDefinition;
  stage: Stage;
}

/** Count (when the route has policies) → check the Origin of a POST → answer → finish. */
function prepareStage(route: RouteDefinition, parts: PipelineParts): Stage {
  const { counter, checkOrigin } = parts;
  const { finish } = parts.responder;
  const handlers = route.load ? toLazyHandlers(route.load) : route;
  const { handle, answerRateLimited, answerRefused } = handlers;
  const answer: Stage = route.method === "POST"
    ? (request, context) => {
      checkOrigin(request);
      return finish(handle(request, context), request, context);
    }
    : (request, context) => finish(handle(request, context), request, context);
  const quota = route.policies?.length ? counter.toQuota(route.policies) : undefined;
  if (!quota) {
    return (request, context) => {
      context.route = route;
      context.answerRefused = answerRefused;
      return answer(request, context);
    };
  }
  const proceed = (decision: RateLimitDecision, request: Request, context: RequestContext) => {
    if (!decision.exceeded) return answer(request, context);
    if (!answerRateLimited) throw toRateLimitedError();
    return answerRateLimited(request, context, toRetryAfterSeconds(decision));
  };
  return (request, context) => {
    context.route = route;
    context.answerRefused = answerRefused;
    const decision = counter.count(quota, context);
    return decision instanceof Promise
      ? decision.then((settled) => proceed(settled, request, context))
      : proceed(decision, request, context);
  };
}

/**
 * A route's stage, prepared by the route's first request: a start prepares none of the table's
 * stages (some 1.5 ms of a cold start, scripts/bench_start.ts), a request only its own.
 */
function prepareOnFirstUse(prepare: () => Stage): Stage {
  let stage: Stage | undefined;
  return (request, context) => (stage ??= prepare())(request, context);
}

/**
 * The stage of a request no route of its method serves: the methods its path has, then a CORS
 * preflight's answer, the site's fallback outside `/api/`, or the API's 405 or 404.
 */
function createUnmatchedStage(
  matcher: RouteMatcher<MatchedRoute>,
  parts: PipelineParts & { fallback: FallbackHandler },
): Stage {
  const { responder, counter, fallback } = parts;
  const readQuota = counter.toQuota(["read"]);
  const writeQuota = counter.toQuota(["write"]);

  /** Counts an `/api/` request no operation serves, then refuses it: 405 or 404. */
  function refuse(request: Request, context: RequestContext, allow: string, quota: Quota) {
    const decision = counter.count(quota, context);
    const answer = (settled: RateLimitDecision): never => {
      if (settled.exceeded) throw toRateLimitedError();
      if (allow) {
        throw new ApiError("not-found", {
          status: 405,
          message: `Method ${request.method} is not allowed at "${context.pathname}"`,
          hint: `Use ${allow}; see /api/v1 for every operation`,
          headers: { Allow: allow },
        });
      }
      throw new ApiError("not-found", {
        status: 404,
        message: `No operation at "${context.pathname}"`,
        hint: "See /api/v1 for every operation of the API",
      });
    };
    return decision instanceof Promise ? decision.then(answer) : answer(decision);
  }

  function answerMatches(request: Request, context: RequestContext, matches: MatchedRoute[]) {
    const allowed = new Set<string>();
    // A page on another origin asking to read a public read: granted, and counted nowhere.
    if (isReadPreflight(request) && matches.some(({ route }) => route.cors)) {
      return responder.secure(answerPreflight(request));
    }
    for (const { route } of matches) {
      allowed.add(route.method);
      if (route.method === "GET") allowed.add("HEAD");
      // An alias path answers with its Link rel="latest-version" whatever the method.
      if (route.latestVersion) context.route = route;
    }
    const allow = [...allowed].join(", ");
    if (!isApiPath(context.pathname)) {
      return responder.finish(fallback(request, context, allow), request, context);
    }
    // A method the path does not take (405) writes nothing: it costs what a read costs, so probes
    // cannot spend a client's write quota; a POST to no operation (404) counts as a write.
    const safe = request.method === "GET" || request.method === "HEAD" || allow !== "";
    return refuse(request, context, allow, safe ? readQuota : writeQuota);
  }

  return (request, context) => {
    const matches = matcher.matchAll(context.pathname);
    return matches instanceof Promise
      ? matches.then((found) => answerMatches(request, context, found))
      : answerMatches(request, context, matches);
  };
}

/**
 * Builds the fetch handler of a route table. With a tracer provider registered with
 * `@opentelemetry/api` when it is built (Deno's, with `OTEL_DENO=true`, or an SDK's), each
 * request's server span is named after the route that matched (`GET /api/v1/booking/slots`, with
 * `http.route`) and its URL's query values are redacted (`traceRequests`); without one, nothing
 * of that runs.
 *
 * @param options The route table and the services of the stages.
 * @returns The handler; it answers every request, errors included, and never rejects.
 */
export function createPipeline(options: PipelineOptions): Handler {
  const { table, fallback } = options;
  const readClientKey = createClientKeyReader(options.trustProxy);
  const responder = createApiResponder(
    table,
    options.versionHeaders,
    createSecurityHeaders(options.baseUrl),
  );
  const errors = createErrorStage(responder, options);
  const parts: PipelineParts = {
    responder,
    counter: createRequestCounter(options.rateLimiter, options.policies),
    checkOrigin: createOriginCheck(options.allowedOrigins, options.baseUrl),
  };
  // With a tracer provider, each route's stage first names the request's server span after the
  // route; without one, the stages are as they were (the check is made once, here).
  const tracing = isTracingOn();
  const matcher = createRouteMatcher(table.map((route): MatchedRoute => ({
    method: route.method,
    path: route.path,
    route,
    stage: prepareOnFirstUse(() =>
      tracing ? toNamingStage(route, prepareStage(route, parts)) : prepareStage(route, parts)
    ),
  })));
  const answerUnmatched = createUnmatchedStage(matcher, { ...parts, fallback });

  return traceRequests<HandlerInfo>((request, info) => {
    let context: RequestContext | undefined;
    try {
      context = {
        pathname: readPathname(request.url),
        clientKey: readClientKey(request, info),
      };
      const matched = matcher.match(request.method, context.pathname);
      const settledContext = context;
      const result = matched instanceof Promise
        ? matched.then((route) =>
          route ? route.stage(request, settledContext) : answerUnmatched(request, settledContext)
        )
        : matched
        ? matched.stage(request, context)
        : answerUnmatched(request, context);
      if (!(result instanceof Promise)) return toResponsePromise(result);
      return result.then(undefined, (error) => errors.recover(error, request, settledContext));
    } catch (error) {
      const answer = context
        ? errors.recover(error, request, context)
        : errors.answerFailure(error);
      // A form's own page of refusal may still be coming; a plain answer is ready at once.
      return answer instanceof Promise ? answer : toResponsePromise(answer);
    }
  });
}

/**
 * A route's stage that first names the request's server span after the route (`GET
 * /api/v1/booking/slots`, `http.route`).
 */
function toNamingStage(route: RouteDefinition, stage: Stage): Stage {
  return (request, context) => {
    nameServerSpan(request.method, route.path);
    return stage(request, context);
  };
}
