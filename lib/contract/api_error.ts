/**
 * The one domain error of the service and the one place that turns errors into the spec's
 * ErrorResponse (spec, Errors).
 *
 * @module
 */
import type { ErrorCode, ErrorStatus } from "./contract.ts";
import type { FieldProblem } from "./fields.ts";

/** Options of {@linkcode ApiError} with code `C`. */
export interface ApiErrorOptions<C extends ErrorCode = ErrorCode> {
  /** The HTTP status: one the contract's table pairs with the code (`ERROR_STATUS_CODES`). */
  status: ErrorStatus<C>;
  /** What went wrong, for people: sentence case, no trailing period. */
  message: string;
  /** How to fix the request or where to look next. */
  hint: string;
  /** Per-field problems of a `validation-failed` error (an additive member of ErrorResponse). */
  details?: FieldProblem[];
  /** Headers the error response carries, for example `Allow` on 405 or `Retry-After` on 429. */
  headers?: Record<string, string>;
}

/**
 * A failure the client can act on. Handlers throw it; the router's catch stage answers it with
 * an ErrorResponse of its status and code. Anything thrown that is not an `ApiError` is answered
 * 500 `internal-error` with a fixed message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ApiError } from "./api_error.ts";
 *
 * const error = new ApiError("not-found", {
 *   status: 404,
 *   message: "No operation at this path",
 *   hint: "See /api/v1 for the operations",
 * });
 * assert.equal(error.status, 404);
 * assert.equal(error.code, "not-found");
 * assert.equal(error.message, "No operation at this path");
 * assert.equal(error.hint, "See /api/v1 for the operations");
 * ```
 */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  /** The machine-readable code. */
  readonly code: ErrorCode;
  /** The HTTP status, one the contract pairs with the code (checked where the error is made). */
  readonly status: number;
  /** How to fix it. */
  readonly hint: string;
  /** Per-field problems, when there are any. */
  readonly details?: FieldProblem[];
  /** Extra response headers. */
  readonly headers: Record<string, string>;

  /**
   * @param code One of the six codes.
   * @param options Status, message, hint, optional details and headers.
   */
  constructor(code: C, options: ApiErrorOptions<C>) {
    super(options.message);
    this.name = "ApiError";
    this.code = code;
    this.status = options.status;
    this.hint = options.hint;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

/** The ErrorResponse body (spec, Errors), with the optional additive `details`. */
export interface ErrorResponseBody {
  ok: false;
  error: {
    code: ErrorCode;
    message: string;
    hint: string;
    /** Absolute URI of the OpenAPI document. */
    docs: string;
    details?: FieldProblem[];
  };
}

/** The fixed message of 500 `internal-error`: details of the failure go to the log only. */
export const INTERNAL_ERROR_MESSAGE = "The service failed unexpectedly";

/**
 * Builds the ErrorResponse body of an error: an {@linkcode ApiError} as it is, anything else as
 * `internal-error` with a fixed message and hint.
 *
 * @param error What was thrown.
 * @param docsUrl Absolute URL of the OpenAPI document, for `error.docs`.
 * @returns The status, extra headers and body to answer with.
 */
export function toErrorResponse(
  error: unknown,
  docsUrl: string,
): { status: number; headers: Record<string, string>; body: ErrorResponseBody } {
  if (error instanceof ApiError) {
    const body: ErrorResponseBody = {
      ok: false,
      error: { code: error.code, message: error.message, hint: error.hint, docs: docsUrl },
    };
    if (error.details) body.error.details = error.details;
    return { status: error.status, headers: error.headers, body };
  }
  return {
    status: 500,
    headers: {},
    body: {
      ok: false,
      error: {
        code: "internal-error",
        message: INTERNAL_ERROR_MESSAGE,
        hint: "Retry later; if it persists, write to the studio by e-mail",
        docs: docsUrl,
      },
    },
  };
}
