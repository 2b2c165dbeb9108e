/**
 * `POST /api/v1/contact` and its permanent alias `POST /api/fuel-contact` (spec, Endpoints):
 * a ContactInquiry as JSON, multipart or urlencoded, stored first and then routed to the inbox.
 *
 * @module
 */
import { loadOnce } from "../lib/load_once.ts";
import { buildOperationRoutes, type RouteDefinition } from "../lib/http/route.ts";
import type { Services } from "../lib/services.ts";

/** The ContactSuccess body (spec, Resources). */
export const CONTACT_SUCCESS = '{"ok":true}';

/** The routes of contact inquiries. */
export function contactRoutes(services: Services): RouteDefinition[] {
  // Inquiries' validation and store are loaded by the first inquiry rather than at start-up.
  const loadInquiries = loadOnce(() => import("../lib/contact/inquiries.ts"));
  return buildOperationRoutes("createContactInquiry", async (request, context) => {
    const { readInquiryBody, submitInquiry, validateInquiry } = await loadInquiries();
    const fields = validateInquiry(await readInquiryBody(request));
    await submitInquiry(services, fields, {
      clientAddress: context.clientKey,
      userAgent: request.headers.get("User-Agent") ?? undefined,
      referrer: request.headers.get("Referer") ?? undefined,
    });
    return { body: CONTACT_SUCCESS, headers: { "Cache-Control": "no-store" } };
  });
}
