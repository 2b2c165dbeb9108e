/**
 * `/sitemap.xml` (sitemaps.org protocol 0.9, with Google's `xhtml:link` language alternates):
 * every indexed page under the public origin, its `lastmod`, and on every entry the alternates
 * of both languages and `x-default` (the Portuguese page), the entry itself included.
 *
 * @module
 */
import type { Corpus } from "./corpus.ts";

/** The XML builder (`xmlbuilder2`), which the first sitemap loads. */
export type XmlBuilder = typeof import("xmlbuilder2");

const SITEMAP_NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9";
const XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml";
const XMLNS_NAMESPACE = "http://www.w3.org/2000/xmlns/";

/**
 * Builds the sitemap of a corpus.
 *
 * @param corpus The corpus (checked: every page has its translation).
 * @param options `baseUrl`, the public origin without a trailing slash, and `xml`, the loaded XML
 * builder.
 * @returns The XML document, UTF-8, with its declaration.
 */
export function buildSitemap(
  corpus: Corpus,
  { baseUrl, xml }: { baseUrl: string; xml: XmlBuilder },
): string {
  const document = xml.create({ version: "1.0", encoding: "UTF-8" })
    .ele(SITEMAP_NAMESPACE, "urlset")
    .att(XMLNS_NAMESPACE, "xmlns:xhtml", XHTML_NAMESPACE);
  for (const page of corpus.pages) {
    if (!page.indexed) continue;
    const versions = corpus.pages.filter((item) => item.id === page.id);
    const entry = document.ele(SITEMAP_NAMESPACE, "url");
    entry.ele(SITEMAP_NAMESPACE, "loc").txt(baseUrl + page.path);
    entry.ele(SITEMAP_NAMESPACE, "lastmod").txt(page.updated);
    for (const version of versions) {
      entry.ele(XHTML_NAMESPACE, "xhtml:link").att({
        rel: "alternate",
        hreflang: corpus.languages[version.language].tag,
        href: baseUrl + version.path,
      });
    }
    const fallback = versions.find((version) => version.language === "pt") ?? page;
    entry.ele(XHTML_NAMESPACE, "xhtml:link").att({
      rel: "alternate",
      hreflang: "x-default",
      href: baseUrl + fallback.path,
    });
  }
  return document.end({ prettyPrint: true }) + "\n";
}
