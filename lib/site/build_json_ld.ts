/**
 * The structured data of every HTML page (schema.org as JSON-LD): the studio as a
 * `ProfessionalService` organisation with its `ContactPoint`, the page as a `WebPage` of the site
 * in its language, and, on the booking page, a `ReserveAction` whose `EntryPoint` is the booking
 * operation of the API. A JSON-LD block is data, not script: the site's policy runs no inline
 * script, and `<` is escaped so the block cannot close its element.
 *
 * @module
 */
import { API_BASE_PATH } from "../contract/contract.ts";
import type { Corpus, CorpusPage, Language } from "./corpus.ts";

/** What the structured data of a page is built from. */
export interface JsonLdView {
  /** The corpus (the studio's name, e-mail and address). */
  corpus: Corpus;
  /** The page's language. */
  language: Language;
  /** The public origin. */
  baseUrl: string;
  /** The page's title, without the studio's name. */
  title: string;
  /** The page's description. */
  description: string;
  /** The corpus page shown, if the document is one. */
  page?: CorpusPage;
}

/**
 * Builds the JSON-LD graph of a page.
 *
 * @param view The page.
 * @returns The `@graph` document, ready for `JSON.stringify`.
 */
export function buildJsonLd(view: JsonLdView): Record<string, unknown> {
  const { corpus, language, baseUrl, page } = view;
  const tags = { pt: corpus.languages.pt.tag, en: corpus.languages.en.tag };
  const studioId = `${baseUrl}/#studio`;
  const siteId = `${baseUrl}/#site`;
  const contact = corpus.pages.find((item) =>
    item.layout === "contact" && item.language === language
  );
  const studio: Record<string, unknown> = {
    "@type": ["Organization", "ProfessionalService"],
    "@id": studioId,
    name: corpus.name,
    url: `${baseUrl}/`,
    email: corpus.email,
    address: {
      "@type": "PostalAddress",
      streetAddress: corpus.address,
      ...(corpus.country ? { addressCountry: corpus.country } : {}),
    },
    knowsLanguage: [tags.pt, tags.en],
    contactPoint: {
      "@type": "ContactPoint",
      contactType: "customer service",
      email: corpus.email,
      availableLanguage: [tags.pt, tags.en],
      ...(contact ? { url: baseUrl + contact.path } : {}),
    },
  };
  const webPage: Record<string, unknown> = {
    "@type": "WebPage",
    "@id": `${baseUrl}${page?.path ?? ""}#page`,
    name: view.title,
    description: view.description,
    inLanguage: tags[language],
    isPartOf: {
      "@type": "WebSite",
      "@id": siteId,
      name: corpus.name,
      url: `${baseUrl}/`,
      inLanguage: [tags.pt, tags.en],
      publisher: { "@id": studioId },
    },
    publisher: { "@id": studioId },
    ...(page ? { url: baseUrl + page.path } : {}),
  };
  if (page?.layout === "booking") {
    webPage.potentialAction = {
      "@type": "ReserveAction",
      name: view.title,
      target: {
        "@type": "EntryPoint",
        urlTemplate: `${baseUrl}${API_BASE_PATH}/booking`,
        httpMethod: "POST",
        contentType: "application/json",
        encodingType: "application/json",
      },
      result: { "@type": "Reservation", provider: { "@id": studioId } },
    };
  }
  return { "@context": "https://schema.org", "@graph": [studio, webPage] };
}

/**
 * The `<script type="application/ld+json">` element of a page's structured data.
 *
 * @param view The page.
 * @returns The element, with `<` escaped inside the JSON.
 */
export function renderJsonLd(view: JsonLdView): string {
  const json = JSON.stringify(buildJsonLd(view)).replaceAll("<", "\\u003c");
  return `<script type="application/ld+json">${json}</script>`;
}
