/**
 * The last stage of the pipeline: what a route answered becomes the `Response`. An API
 * operation's {@linkcode JsonAnswer} is built into one response together with the fields every
 * `/api/` response carries (`Content-Type`, `API-Version`, the deprecation notice, an alias's
 * `Link`, the rate-limit fields, the security fields); a `Response` passes with the security
 * fields it lacks added (`security_headers.ts`). HEAD gets the head alone, with the
 * `Content-Length` of the body GET would send. An API body of 1 KiB or more is gzipped for a
 * client that takes it (prepared representations compress themselves, see `respond`).
 *
 * @module
 */
import { JSON_TYPE, type JsonAnswer } from "./json_response.ts";
import { setRateLimitHeaders } from "./rate_limit.ts";
import { acceptsGzip, MIN_COMPRESSED_BYTES } from "./representation.ts";
import type { RequestContext, RouteDefinition } from "./route.ts";
import { formatLink } from "./versioning.ts";
import type { SecurityHeaders } from "./security_headers.ts";
import { CORS_FIELDS } from "./cors.ts";

/** Builds responses for one route table. */
export interface ApiResponder {
  /**
   * The fields every `/api/` response carries whatever its rate limit: `Content-Type`,
   * `API-Version`, the deprecation notice, if any, and the security fields (name → value).
   */
  readonly apiFields: Readonly<Record<string, string>>;
  /** Adds the security fields a `Response` lacks (the policy, too, when it is HTML). */
  secure(response: Response): Response;
  /** Builds the `Response` of an `/api/` answer (see the module's description). */
  toApiResponse(answer: JsonAnswer, request: Request, context: RequestContext): Response;
  /**
   * Turns what a route answered, or a promise of it, into the response: a `JsonAnswer` through
   * `toApiResponse`, a `Response` as it is, without its body for HEAD.
   */
  finish(
    result: Response | JsonAnswer | Promise<Response | JsonAnswer>,
    request: Request,
    context: RequestContext,
  ): Response | Promise<Response>;
}

/**
 * Adds a field to a header record; a second value of a list field such as `Link` joins the
 * first as one comma-separated list (RFC 9110, section 5.3).
 */
function addField(headers: Record<string, string>, name: string, value: string): void {
  const present = headers[name];
  headers[name] = present === undefined ? value : `${present}, ${value}`;
}

const encoder = new TextEncoder();

/**
 * The answer to HEAD of a response prepared for GET: its status and fields, no body, and the
 * `Content-Length` GET would send (RFC 9110, section 9.3.2).
 */
async function toHeadResponse(response: Response): Promise<Response> {
  const headers = new Headers(response.headers);
  if (!headers.has("Content-Length")) {
    headers.set("Content-Length", String((await response.arrayBuffer()).byteLength));
  } else {
    await response.body?.cancel();
  }
  return new Response(null, { status: response.status, headers });
}

/**
 * Creates the responder of a route table.
 *
 * @param table The route table (its aliases get their `Link; rel="latest-version"` once here).
 * @param versionHeaders `API-Version` and the deprecation notice's fields, as name–value pairs.
 * @param security The deployment's security fields.
 * @returns The responder.
 */
export function createApiResponder(
  table: readonly RouteDefinition[],
  versionHeaders: ReadonlyArray<readonly [string, string]>,
  security: SecurityHeaders,
): ApiResponder {
  const apiFields: Record<string, string> = { "Content-Type": JSON_TYPE };
  for (const [name, value] of [...versionHeaders, ...security.fields]) {
    addField(apiFields, name, value);
  }
  // Each route whose answers carry more than the common fields gets its record once: an alias's
  // Link rel="latest-version", a public read's CORS fields.
  const routeFields = new Map<RouteDefinition, Record<string, string>>();
  for (const route of table) {
    if (!route.latestVersion && !route.cors) continue;
    const fields = { ...apiFields, ...(route.cors ? CORS_FIELDS : {}) };
    if (route.latestVersion) {
      addField(fields, "Link", formatLink(route.latestVersion, "latest-version"));
    }
    routeFields.set(route, fields);
  }

  function toApiResponse(answer: JsonAnswer, request: Request, context: RequestContext) {
    const route = context.route;
    // A Response built whole from one header record is the cheapest kind in Deno: nothing is
    // set on its headers afterwards. Object.assign, not a spread: on Node 20 (V8 11.3) copying
    // these records with `{ ...fields }` and then adding fields is many times slower.
    const headers = Object.assign({}, route && routeFields.get(route) || apiFields);
    if (answer.headers) {
      for (const name in answer.headers) addField(headers, name, answer.headers[name]);
    }
    const decision = context.rateLimit;
    if (decision) {
      headers["RateLimit-Policy"] = context.rateLimitPolicy ?? "";
      setRateLimitHeaders(headers, decision);
    }
    const body = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
    const status = answer.status ?? 200;
    if (request.method === "HEAD") {
      // The length GET would send, not 0 (RFC 9110, section 9.3.2).
      headers["Content-Length"] = String(encoder.encode(body).byteLength);
      return new Response(null, { status, headers });
    }
    // A body worth compressing (the index, a month's slots) goes gzipped to a client that takes
    // it; a small one (health) is answered without reading the request's fields at all.
    if (body.length >= MIN_COMPRESSED_BYTES) {
      addField(headers, "Vary", "Accept-Encoding");
      if (status === 200 && acceptsGzip(request.headers.get("Accept-Encoding"))) {
        headers["Content-Encoding"] = "gzip";
        // The platform's gzip (Compression Streams): `node:zlib` would lengthen a cold start.
        const gzipped = new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"));
        return new Response(gzipped, { status, headers });
      }
    }
    return new Response(body, { status, headers });
  }

  function finish(
    result: Response | JsonAnswer | Promise<Response | JsonAnswer>,
    request: Request,
    context: RequestContext,
  ): Response | Promise<Response> {
    if (result instanceof Promise) {
      return result.then((settled) => finish(settled, request, context));
    }
    if (!(result instanceof Response)) return toApiResponse(result, request, context);
    const secured = security.apply(result);
    if (context.route?.cors) {
      for (const name in CORS_FIELDS) secured.headers.set(name, CORS_FIELDS[name]);
    }
    if (request.method === "HEAD" && secured.body) return toHeadResponse(secured);
    return secured;
  }

  return { apiFields, toApiResponse, finish, secure: security.apply };
}
