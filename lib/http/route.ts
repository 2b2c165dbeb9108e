/**
 * The shape of a route: the route table is data (docs/style.md), and one array of these drives
 * registration, rate limiting, the API index, `Allow` on 405 and the OpenAPI coverage test.
 *
 * @module
 */
import type { RateLimitDecision } from "./rate_limit.ts";
import {
  getOperation,
  type Operation,
  type OperationId,
  type PolicyName,
} from "../contract/contract.ts";
import type { JsonAnswer } from "./json_response.ts";

/** What a route handler gets besides the request. */
export interface RequestContext {
  /** The request URL's path, e.g. `/api/v1/health` (parse `request.url` for the query). */
  pathname: string;
  /** The client's rate-limit key (IPv4 address or IPv6 /64). */
  clientKey: string;
  /** The route that matched, once one did. */
  route?: RouteDefinition;
  /**
   * How the matched route answers a refusal or a failure as its people see it (a page in the
   * form's language), when it has a way of its own; see {@linkcode RouteHandlers.answerRefused}.
   */
  answerRefused?: RefusedHandler;
  /** The rate-limit outcome, once the request was counted (every `/api/` request is). */
  rateLimit?: RateLimitDecision;
  /** The serialised `RateLimit-Policy` of the policies the request was counted against. */
  rateLimitPolicy?: string;
}

/**
 * Reads the path of a request URL without parsing it again: `Request.url` is already the
 * serialised, normalised URL, whose path starts at the first `/` after the authority and ends
 * before `?` or `#`.
 *
 * @param href A normalised absolute http(s) URL, as `Request.url` gives it.
 * @returns The path, at least `/`.
 */
export function readPathname(href: string): string {
  const start = href.indexOf("/", href.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = href.length;
  const query = href.indexOf("?", start);
  if (query >= 0) end = query;
  const fragment = href.indexOf("#", start);
  if (fragment >= 0 && fragment < end) end = fragment;
  return href.slice(start, end);
}

/**
 * A route handler: answers, or throws an `ApiError`. Handlers of API operations answer with a
 * {@linkcode JsonAnswer}, which the pipeline turns into the `Response` together with the headers
 * of every `/api/` response; a `Response` is passed on as it is.
 */
export type RouteHandler = (
  request: Request,
  context: RequestContext,
) => Response | JsonAnswer | Promise<Response | JsonAnswer>;

/** The handler of an API operation (see {@linkcode buildOperationRoutes}). */
export type OperationHandler = (
  request: Request,
  context: RequestContext,
) => JsonAnswer | Promise<JsonAnswer>;

/** What answers the requests of a route. */
export interface RouteHandlers {
  /** The handler. */
  handle: RouteHandler;
  /**
   * Answers a request refused by a policy, for routes that answer people rather than the API
   * (a page in the route's language); without it, the refusal is the API's 429 ErrorResponse.
   * The request's body has not been read.
   */
  answerRateLimited?: RateLimitedHandler;
  /**
   * Answers, for routes that answer people rather than the API (a form), a request the pipeline
   * refused (a foreign `Origin`: 403) or whose handler failed (500, or another `ApiError` it
   * threw), as a page in the route's language rather than the plain-text answer of other paths
   * outside `/api/`. It may throw, and the plain answer is given then.
   */
  answerRefused?: RefusedHandler;
}

/**
 * Answers a request that was refused, or whose handler failed, as its route's people see it.
 *
 * @param request The request (its body may be unread).
 * @param context The request's context.
 * @param error What was thrown: an `ApiError`, or an unexpected failure (already logged).
 */
export type RefusedHandler = (
  request: Request,
  context: RequestContext,
  error: unknown,
) => Response | Promise<Response>;

/** What the table knows of a route before its handler is loaded. */
export interface RouteEntry {
  /** The method; every GET route also answers HEAD. */
  method: "GET" | "POST";
  /** The path pattern, in itty-router syntax (`/api/v1/health`, `/md/*`). */
  path: string;
  /** The API operation served, for routes under `/api/`. */
  operation?: Operation;
  /** For an unversioned alias: the canonical path, announced with `rel="latest-version"`. */
  latestVersion?: string;
  /**
   * The rate-limit policies a request of this route is counted against before it is answered
   * (spec, Limits); none, the route is not counted. An API operation's are its own.
   */
  policies?: readonly PolicyName[];
  /**
   * Whether pages on any origin may read it (CORS `Access-Control-Allow-Origin: *`): the read
   * operations and the public documents. Only GET routes; their preflights are answered 204 and
   * counted against no quota.
   */
  cors?: boolean;
}

/**
 * A route whose handler module is imported with its first request: `load` resolves to its
 * handlers, once (the pipeline wraps it in `loadOnce`, so a failed load is tried again by the
 * next request). The request is counted against the route's policies before the load.
 */
export interface LazyRouteDefinition extends RouteEntry {
  /** Imports the handler's module and builds the handlers. */
  load: () => Promise<RouteHandlers>;
  handle?: never;
  answerRateLimited?: never;
  answerRefused?: never;
}

/** A route whose handler is ready when the table is built. */
export interface EagerRouteDefinition extends RouteEntry, RouteHandlers {
  load?: never;
}

/**
 * One entry of the route table: the one table of the API and the site, whose entries drive
 * matching, rate limiting, the API index, `Allow` on 405 and CORS preflights. Laziness is a
 * property of an entry: `load` instead of `handle`.
 */
export type RouteDefinition = EagerRouteDefinition | LazyRouteDefinition;

/**
 * Answers a request that a rate-limit policy refused.
 *
 * @param request The request (its body unread).
 * @param context The request's context, with the refusing decision in `rateLimit`.
 * @param retryAfterSeconds Seconds until the exhausted window resets, at least 1.
 */
export type RateLimitedHandler = (
  request: Request,
  context: RequestContext,
  retryAfterSeconds: number,
) => Response | Promise<Response>;

/**
 * Builds the routes of one API operation: its canonical path and each alias, all sharing one
 * handler (spec, Versioning 5 and 6).
 *
 * @param operationId The operation's id in `OPERATIONS`.
 * @param handle The handler; it answers with a {@linkcode JsonAnswer}.
 * @returns The canonical route first, then one route per alias.
 */
export function buildOperationRoutes(
  operationId: OperationId,
  handle: OperationHandler,
): RouteDefinition[] {
  const operation = getOperation(operationId);
  const policies = operation.policies;
  // Reads are public to every origin; writes stay same-origin for browsers (the Origin rule).
  const cors = operation.method === "GET";
  return [
    { method: operation.method, path: operation.path, operation, policies, cors, handle },
    ...operation.aliases.map((alias) => ({
      method: operation.method,
      path: alias,
      operation,
      latestVersion: operation.path,
      policies,
      cors,
      handle,
    })),
  ];
}
