/**
 * The team's calendar subscription, `GET /team/calendar.ics?key=…`: the accepted and pending
 * bookings as `text/calendar` (see `lib/team/calendar_feed.ts`) for the holder of the current
 * secret. An unknown or revoked key answers 404: the site's 404 page to a browser, the API's
 * ErrorResponse to everything else (calendar apps, scripts). The feed is private
 * (`Cache-Control: private, no-cache`: no shared cache keeps it, and each poll revalidates its
 * `ETag`, answered 304 while no booking changed).
 *
 * @module
 */
import { ApiError, toErrorResponse } from "../lib/contract/api_error.ts";
import { jsonResponse } from "../lib/http/json_response.ts";
import { type HeaderPair, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RequestContext, RouteHandler, RouteHandlers } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";
import { buildCalendarFeed, isFeedSecret } from "../lib/team/calendar_feed.ts";

/** Fields of every answer of the feed's path: private, never indexed, no `Referer` passed on. */
const PRIVATE_FIELDS: readonly HeaderPair[] = [
  ["X-Robots-Tag", "noindex"],
  ["Referrer-Policy", "no-referrer"],
];

/** The feed's fields. */
const FEED_FIELDS: readonly HeaderPair[] = [
  ["Content-Type", "text/calendar; charset=utf-8"],
  ["Cache-Control", "private, no-cache"],
  ...PRIVATE_FIELDS,
];

const NOT_FOUND = new ApiError("not-found", {
  status: 404,
  message: "No calendar feed at this address",
  hint:
    "The feed's address changes when the team renews it: copy the current one from the team's desk",
});

/** Whether a request comes from a browser, which gets pages rather than JSON. */
function isBrowser(request: Request): boolean {
  return /\btext\/html\b/i.test(request.headers.get("Accept") ?? "");
}

/**
 * Creates the feed's handlers.
 *
 * @param services The resolved services (store, clock, schedule, the studio's address, and the
 * OpenAPI document's URL for ErrorResponse `docs`).
 * @param answerNotFound Answers a browser's request for an unknown key (the site's 404 page).
 * @returns The handlers of `GET /team/calendar.ics`.
 */
export function createTeamCalendarFeed(
  services: Services,
  answerNotFound: RouteHandler,
): RouteHandlers {
  const answerError = (error: ApiError, request: Request, context: RequestContext) => {
    if (isBrowser(request)) {
      if (error.status === 404) return answerNotFound(request, context);
      throw error;
    }
    const { status, headers, body } = toErrorResponse(error, services.docsUrl);
    const response = jsonResponse(body, {
      status,
      headers: { ...headers, "Cache-Control": "no-store" },
    });
    for (const [name, value] of PRIVATE_FIELDS) response.headers.set(name, value);
    return response;
  };
  return {
    handle: async (request, context) => {
      const key = new URL(request.url).searchParams.get("key") ?? "";
      let feed: string | undefined;
      try {
        if (await isFeedSecret(services.store, key)) feed = await buildCalendarFeed(services);
      } catch (error) {
        services.logger.error("Calendar feed could not read the store", {
          error: error instanceof Error ? error.message : String(error),
        });
        return answerError(
          new ApiError("no-backend", {
            status: 503,
            message: "The bookings could not be read",
            hint: "Retry in a minute",
            headers: { "Retry-After": "60" },
          }),
          request,
          context,
        );
      }
      if (feed === undefined) return answerError(NOT_FOUND, request, context);
      return respond(request, toRepresentation(feed, FEED_FIELDS));
    },
  };
}
