/**
 * The error stage of the pipeline, the one place where a failure becomes a response: an
 * `ApiError` as the spec's ErrorResponse under `/api/` (spec, Errors) or as plain text on the
 * site; anything else as 500 `internal-error`, its detail logged and never sent (oak's rule:
 * 4xx messages shown, 5xx details hidden).
 *
 * @module
 */
import { ApiError, toErrorResponse } from "../contract/api_error.ts";
import { API_PREFIX } from "../contract/contract.ts";
import type { Logger } from "../ports.ts";
import type { ApiResponder } from "./create_api_responder.ts";
import type { RequestContext } from "./route.ts";
import { discardBody } from "./read_body.ts";

/** Turns failures into responses; neither function throws. */
export interface ErrorStage {
  /**
   * Answers what a stage or route threw, for a request whose context is known: the API's
   * ErrorResponse under `/api/`, the matched route's own page where it has one
   * (`RouteHandlers.answerRefused`), plain text elsewhere.
   */
  recover(error: unknown, request: Request, context: RequestContext): Response | Promise<Response>;
  /**
   * A bare 500 for a failure before routing or in the error stage itself: the ErrorResponse with
   * the fields every API response carries whatever its rate limit.
   */
  answerFailure(error: unknown): Response;
}

/** Whether a path belongs to the API, whose answers are JSON (`/api` and below). */
export function isApiPath(pathname: string): boolean {
  return pathname === API_PREFIX || pathname.startsWith(API_PREFIX + "/");
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * Creates the error stage of a handler.
 *
 * @param responder Builds `/api/` responses (with the request's rate-limit fields).
 * @param options The logger and the absolute URL of the OpenAPI document (ErrorResponse `docs`).
 */
export function createErrorStage(
  responder: ApiResponder,
  options: { logger: Logger; docsUrl: string },
): ErrorStage {
  const { logger, docsUrl } = options;

  function logUnexpected(error: unknown, request: Request, context: RequestContext): void {
    if (error instanceof ApiError) return;
    logger.error("Unexpected failure", {
      method: request.method,
      path: context.pathname,
      error: describe(error),
    });
  }

  function answerError(error: unknown, request: Request, context: RequestContext): Response {
    const answer = toErrorResponse(error, docsUrl);
    if (isApiPath(context.pathname)) return responder.toApiResponse(answer, request, context);
    return responder.secure(
      new Response(request.method === "HEAD" ? null : answer.body.error.message, {
        status: answer.status,
        headers: Object.assign({}, answer.headers, { "Content-Type": "text/plain; charset=utf-8" }),
      }),
    );
  }

  function answerFailure(error: unknown): Response {
    logger.error("Unexpected failure outside the route handlers", { error: describe(error) });
    const body = JSON.stringify(toErrorResponse(error, docsUrl).body);
    return new Response(body, { status: 500, headers: responder.apiFields });
  }

  /** The plain answer, or a bare 500 when even that fails. */
  function answerPlain(error: unknown, request: Request, context: RequestContext): Response {
    // A body the route did not read (a refused Origin) is let go; a read one is left alone.
    if (!request.bodyUsed) discardBody(request);
    try {
      return answerError(error, request, context);
    } catch (failure) {
      return answerFailure(failure);
    }
  }

  return {
    recover(error, request, context) {
      logUnexpected(error, request, context);
      const answerRefused = context.answerRefused;
      if (!answerRefused || isApiPath(context.pathname)) {
        return answerPlain(error, request, context);
      }
      // A person sent this (a form): a page of the site in its language says what happened.
      return Promise.resolve()
        .then(() => answerRefused(request, context, error))
        .then(
          (response) => {
            if (!request.bodyUsed) discardBody(request);
            return responder.secure(response);
          },
          () => answerPlain(error, request, context),
        );
    },
    answerFailure,
  };
}
