/**
 * The contact form of the site, for people without JavaScript: `POST /contacto` and
 * `POST /en/contact` take the form's `multipart/form-data` through the same contact service as
 * `POST /api/v1/contact`, counted against the same write quota, and answer with pages in the
 * form's language, never JSON: a 303 to the thank-you page, the form again with a message per
 * field (400), or a page saying what went wrong (400, 429, 500).
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import { buildNoticePage, type Site, type SitePage } from "../lib/site/site.ts";
import { findPage } from "../lib/site/render_page.ts";
import type { FieldProblem } from "../lib/contract/fields.ts";
import type { Attribution } from "../lib/contact/first_touch.ts";
import { ATTRIBUTION_FIELDS } from "../lib/contract/contract.ts";
import { type ContactFormState, renderContactForm } from "../lib/site/render_contact_form.ts";
import { respond, toRepresentation } from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import { discardBody } from "../lib/http/read_body.ts";
import { loadOnce } from "../lib/load_once.ts";

/** The module of inquiries' validation and store. */
type Inquiries = typeof import("../lib/contact/inquiries.ts");

/** Reads what the person typed from a copy of the request, to show the form again. */
async function readFormState(copy: Request): Promise<ContactFormState> {
  let form: FormData;
  try {
    form = await copy.formData();
  } catch {
    return {};
  }
  const text = (name: string) => {
    const value = form.get(name);
    return typeof value === "string" ? value : undefined;
  };
  const [firstName, lastName] = form.getAll("Name").map((value) => String(value));
  const attribution: Attribution = {};
  for (const name of ATTRIBUTION_FIELDS) {
    const value = text(name);
    if (value) attribution[name] = value;
  }
  return {
    firstName,
    lastName,
    values: { Email: text("Email"), Message: text("Message"), Category: text("Category") },
    attribution,
  };
}

/** Answers the contact page again, with the person's values and the problems found. */
function answerInvalid(
  site: Site,
  entry: SitePage,
  request: Request,
  state: ContactFormState,
  problems: readonly FieldProblem[],
): Promise<Response> {
  const settings = site.corpus.languages[entry.page.language];
  const html = site.renderHtml({
    language: entry.page.language,
    title: `${settings.form.errorSummary.replace(/:$/, "")} · ${entry.page.title}`,
    description: entry.page.description,
    mainHtml: entry.bodyHtml +
      renderContactForm(
        settings.form,
        entry.page.path,
        { ...state, problems },
        site.renderInlineMarkdown,
      ),
    page: entry.page,
    translation: entry.translation,
    markdownPath: entry.markdownPath,
  });
  const headers = entry.html.headers.filter(([name]) =>
    name !== "ETag" && name !== "Cache-Control" && name !== "Vary"
  );
  return respond(request, toRepresentation(html, [...headers, ["Cache-Control", "no-store"]]), {
    status: 400,
  });
}

/** Submits the form's inquiry; a refusal is the form again or a page saying what happened. */
async function submitContactForm(
  services: SiteServices,
  inquiries: Inquiries,
  page: { site: Site; entry: SitePage },
  request: Request,
  context: RequestContext,
): Promise<Response> {
  const { readInquiryBody, submitInquiry, validateInquiry } = inquiries;
  const { site, entry } = page;
  const text = site.corpus.languages[entry.page.language].form;
  const language = entry.page.language;
  const copy = request.clone();
  let fields;
  try {
    fields = validateInquiry(await readInquiryBody(request));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "validation-failed" && error.details) {
      return answerInvalid(site, entry, request, await readFormState(copy), error.details);
    }
    discardBody(copy);
    return respond(request, buildNoticePage(site, language, text.badForm), { status: 400 });
  }
  discardBody(copy);
  try {
    await submitInquiry(services, fields, {
      clientAddress: context.clientKey,
      userAgent: request.headers.get("User-Agent") ?? undefined,
      referrer: request.headers.get("Referer") ?? undefined,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return respond(request, buildNoticePage(site, language, text.noBackend), { status: 500 });
  }
  const thanks = findPage(site.corpus, text.thanksPage, language);
  return new Response(null, {
    status: 303,
    headers: { Location: thanks.path, "Cache-Control": "no-store" },
  });
}

/**
 * The handlers of the contact form's `POST` on a page whose layout is `contact` (their routes are
 * entries of `routes/mod.ts`, counted against the write quota like `POST /api/v1/contact`); a
 * refusal is a page in the form's language.
 *
 * @param services The site's services.
 * @returns The handlers of the form on the page at a path.
 * @throws {Error} When no page has that path.
 */
export function createContactForm(services: SiteServices): (path: string) => RouteHandlers {
  // Inquiries' validation and store are loaded by the form's first submission.
  const loadInquiries = loadOnce(() => import("../lib/contact/inquiries.ts"));
  return (path) => {
    const page = services.content.pages.find((candidate) => candidate.path === path);
    if (!page) throw new Error(`No page at "${path}"`);
    const prepare = async () => {
      const site = await services.site();
      const entry = site.pages.get(page.path);
      if (!entry) throw new Error(`No prepared page at "${page.path}"`);
      return { site, entry };
    };
    return {
      answerRateLimited: async (request, _context, retryAfterSeconds) => {
        discardBody(request);
        const { site } = await prepare();
        const seconds = String(retryAfterSeconds);
        const notice = site.corpus.languages[page.language].form.rateLimited;
        return respond(request, buildNoticePage(site, page.language, notice, { seconds }), {
          status: 429,
          headers: [["Retry-After", seconds]],
        });
      },
      // A refused Origin, or a failure: a page in the form's language, not plain text.
      answerRefused: async (request, _context, error) => {
        discardBody(request);
        const { site } = await prepare();
        const text = site.corpus.languages[page.language].form;
        const refused = error instanceof ApiError && error.status === 403;
        return respond(
          request,
          buildNoticePage(site, page.language, refused ? text.originRejected : text.noBackend),
          { status: refused ? 403 : 500 },
        );
      },
      handle: async (request, context) => {
        const prepared = await prepare();
        return submitContactForm(services, await loadInquiries(), prepared, request, context);
      },
    };
  };
}
