/**
 * The contact form of the site, for people without JavaScript: `POST /contacto` and
 * `POST /en/contact` take the form's `multipart/form-data` through the same contact service as
 * `POST /api/v1/contact`, counted against the same write quota, and answer with pages in the
 * form's language, never JSON: a 303 to the thank-you page, or the contact page again, in the
 * site's design, with what the person typed and what happened: a message per field (400), or a
 * notice of why the whole message was refused (400 unreadable, 403 refused Origin, 413 too large,
 * 429 limited, with `Retry-After`, 500 or 503 not stored).
 *
 * @module
 */
import { ApiError } from "../lib/contract/api_error.ts";
import { fillNotice, type Site, type SitePage } from "../lib/site/site.ts";
import { findPage } from "../lib/site/render_page.ts";
import type { Attribution } from "../lib/contact/first_touch.ts";
import { ATTRIBUTION_FIELDS, MAX_BODY_BYTES } from "../lib/contract/contract.ts";
import type { Notice } from "../lib/site/corpus.ts";
import { type ContactFormState, renderContactForm } from "../lib/site/render_contact_form.ts";
import { type HeaderPair, respond, toRepresentation } from "../lib/http/representation.ts";
import type { RequestContext, RouteHandlers } from "../lib/http/route.ts";
import type { SiteServices } from "../lib/services.ts";
import {
  type BodyPrefix,
  parseFormValues,
  readBodyPrefix,
  readFormValues,
} from "../lib/http/read_form_values.ts";
import { loadOnce } from "../lib/load_once.ts";

/** The module of inquiries' validation and store. */
type Inquiries = typeof import("../lib/contact/inquiries.ts");

/** The largest form body taken, in bytes: the contact operation's bound. */
const MAX_FORM_BYTES = MAX_BODY_BYTES.createContactInquiry;

/**
 * What the person typed, for each submission whose body was read, until it is answered: a failure
 * its handler did not expect is answered by `answerRefused`, which shows it again.
 */
type TypedValues = WeakMap<Request, () => ContactFormState>;

/** The form's values as the person typed them, from the fields as they arrived. */
function toFormState(form: URLSearchParams): ContactFormState {
  const text = (name: string) => form.get(name) ?? undefined;
  const [firstName, lastName] = form.getAll("Name");
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

/** How a contact page answers a refused submission: its status, and what it shows. */
interface ContactAnswer {
  status: number;
  /** The person's values, and the problems of the fields (400) if any. */
  state: ContactFormState;
  /** What happened to a submission refused as a whole, and its placeholders' values. */
  notice?: { notice: Notice; values?: Record<string, string> };
  /** Fields added to the answer, e.g. `Retry-After`. */
  headers?: readonly HeaderPair[];
}

/**
 * Answers the contact page again, in the site's design and the form's language, with the
 * person's values and what happened: the problems of the fields, or a notice.
 */
function answerContactPage(
  site: Site,
  entry: SitePage,
  request: Request,
  answer: ContactAnswer,
): Promise<Response> {
  const settings = site.corpus.languages[entry.page.language];
  const { notice } = answer;
  const state: ContactFormState = notice
    ? {
      ...answer.state,
      notice: {
        title: notice.notice.title,
        html: site.renderInlineMarkdown(
          fillNotice(notice.notice.text, site.baseUrl, notice.values),
        ),
      },
    }
    : answer.state;
  const heading = notice ? notice.notice.title : settings.form.errorSummary.replace(/:$/, "");
  const html = site.renderHtml({
    language: entry.page.language,
    title: `${heading} · ${entry.page.title}`,
    description: entry.page.description,
    mainHtml: entry.bodyHtml +
      renderContactForm(settings.form, entry.page.path, state, site.renderInlineMarkdown),
    page: entry.page,
    translation: entry.translation,
    markdownPath: entry.markdownPath,
  });
  const headers = entry.html.headers.filter(([name]) =>
    name !== "ETag" && name !== "Cache-Control" && name !== "Vary"
  );
  return respond(
    request,
    toRepresentation(html, [...headers, ["Cache-Control", "no-store"]]),
    { status: answer.status, headers: answer.headers },
  );
}

/** The body as the contact service reads it: a request of the same type holding these bytes. */
function toBodyRequest(request: Request, prefix: BodyPrefix): Request {
  return new Request(request.url, {
    method: "POST",
    headers: { "Content-Type": request.headers.get("Content-Type") ?? "" },
    body: prefix.bytes,
  });
}

/** Submits the form's inquiry; a refusal is the form again, with the person's values. */
async function submitContactForm(
  services: SiteServices,
  inquiries: Inquiries,
  page: { site: Site; entry: SitePage; typed: TypedValues },
  request: Request,
  context: RequestContext,
): Promise<Response> {
  const { readInquiryBody, submitInquiry, validateInquiry } = inquiries;
  const { site, entry, typed } = page;
  const text = site.corpus.languages[entry.page.language].form;
  const prefix = await readBodyPrefix(request, { maxBytes: MAX_FORM_BYTES });
  // Read leniently only when the form is shown again: a body too large keeps what arrived.
  const readTyped = () =>
    toFormState(
      parseFormValues(prefix.bytes, {
        contentType: request.headers.get("Content-Type") ?? "",
        outcome: prefix.outcome,
      }).fields,
    );
  typed.set(request, readTyped);
  const answer = (status: number, notice: Notice, values?: Record<string, string>) =>
    answerContactPage(site, entry, request, {
      status,
      state: readTyped(),
      notice: { notice, values },
    });
  if (prefix.outcome === "too-large") {
    return answer(413, text.tooLarge, { max: String(MAX_FORM_BYTES / 1024) });
  }
  if (prefix.outcome !== "complete") return answer(400, text.badForm);
  let fields;
  try {
    fields = validateInquiry(await readInquiryBody(toBodyRequest(request, prefix)));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === "validation-failed" && error.details) {
      return answerContactPage(site, entry, request, {
        status: 400,
        state: { ...readTyped(), problems: error.details },
      });
    }
    return answer(400, text.badForm);
  }
  try {
    await submitInquiry(services, fields, {
      clientAddress: context.clientKey,
      userAgent: request.headers.get("User-Agent") ?? undefined,
      referrer: request.headers.get("Referer") ?? undefined,
    });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return answer(error.status >= 500 ? error.status : 500, text.noBackend);
  }
  const thanks = findPage(site.corpus, text.thanksPage, entry.page.language);
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
  const typed: TypedValues = new WeakMap();
  return (path) => {
    const page = services.content.pages.find((candidate) => candidate.path === path);
    if (!page) throw new Error(`No page at "${path}"`);
    const prepare = async () => {
      const site = await services.site();
      const entry = site.pages.get(page.path);
      if (!entry) throw new Error(`No prepared page at "${page.path}"`);
      return { site, entry, typed };
    };
    /** What the person typed: as the handler read it, or from a body no one has read yet. */
    const readState = async (request: Request) =>
      typed.get(request)?.() ?? toFormState((await readFormValues(request, MAX_FORM_BYTES)).fields);
    return {
      answerRateLimited: async (request, _context, retryAfterSeconds) => {
        const { site, entry } = await prepare();
        const seconds = String(retryAfterSeconds);
        return answerContactPage(site, entry, request, {
          status: 429,
          state: await readState(request),
          notice: {
            notice: site.corpus.languages[page.language].form.rateLimited,
            values: { seconds },
          },
          headers: [["Retry-After", seconds]],
        });
      },
      // A refused Origin, or a failure: the form again with what the person typed, not plain text.
      answerRefused: async (request, _context, error) => {
        const { site, entry } = await prepare();
        const text = site.corpus.languages[page.language].form;
        const refused = error instanceof ApiError && error.status === 403;
        const status = error instanceof ApiError && error.status >= 400 ? error.status : 500;
        return answerContactPage(site, entry, request, {
          status,
          state: await readState(request),
          notice: {
            notice: refused ? text.originRejected : status < 500 ? text.badForm : text.noBackend,
          },
        });
      },
      handle: async (request, context) => {
        const prepared = await prepare();
        return submitContactForm(services, await loadInquiries(), prepared, request, context);
      },
    };
  };
}
