/**
 * The desk's sections, one page each, as one table that draws its navigation: the overview, the
 * inquiries, the bookings, personal data, the calendar feed, passkeys and the audit trail. A new
 * section is one more entry (its title and path by language, its count if it has one, whether the
 * service offers it); the pages' frame (the navigation beside the page's content) and the header's
 * tools (the member, signing out) are drawn here too.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type { DeskCounts } from "./desk_data.ts";
import { DESK_WORDS } from "./desk_words.ts";
import { postForm } from "./render_desk.ts";
import { TEAM_PATHS, type TeamLocale } from "./team.ts";

/** What the section counts are read from: the records' counts and the member's passkeys. */
export interface DeskSectionCounts extends DeskCounts {
  /** The signed-in member's passkeys. */
  passkeys: number;
}

/** The sections the service offers, besides those every desk has. */
export interface DeskOffer {
  /** Export and erasure of an address's data. */
  personalData: boolean;
  /** The team's calendar feed. */
  calendarFeed: boolean;
  /** The webhook endpoints' page (`STUDIO_WEBHOOK_URL` names at least one). */
  webhooks: boolean;
}

/** One section of the desk: a page of its own, and its entry in the navigation. */
export interface DeskSection {
  /** Its name in the desk's code and the navigation's markup, e.g. `bookings`. */
  id: string;
  /** Its title in a language. */
  title(locale: TeamLocale): string;
  /** The path of its page in a language. */
  path(locale: TeamLocale): string;
  /** The count beside its title, and what it counts in words; none when it has none or is 0. */
  count?(counts: DeskSectionCounts, locale: TeamLocale): { value: number; label: string };
  /** Whether the service offers it. @default {always} */
  offered?(offer: DeskOffer): boolean;
}

/** The desk's sections, in the navigation's order. */
export const DESK_SECTIONS: readonly DeskSection[] = [
  {
    id: "overview",
    title: (locale) => DESK_WORDS[locale].overview,
    path: (locale) => TEAM_PATHS[locale].desk,
  },
  {
    id: "inquiries",
    title: (locale) => DESK_WORDS[locale].inquiries,
    path: (locale) => TEAM_PATHS[locale].inquiries,
    count: (counts, locale) => ({
      value: counts.openInquiries,
      label: DESK_WORDS[locale].countLabel.inquiries(counts.openInquiries),
    }),
  },
  {
    id: "bookings",
    title: (locale) => DESK_WORDS[locale].bookings,
    path: (locale) => TEAM_PATHS[locale].bookings,
    count: (counts, locale) => ({
      value: counts.pendingBookings,
      label: DESK_WORDS[locale].countLabel.bookings(counts.pendingBookings),
    }),
  },
  {
    id: "personal-data",
    title: (locale) => DESK_WORDS[locale].personalData,
    path: (locale) => TEAM_PATHS[locale].personalData,
    offered: (offer) => offer.personalData,
  },
  {
    id: "calendar-feed",
    title: (locale) => DESK_WORDS[locale].calendarFeed,
    path: (locale) => TEAM_PATHS[locale].calendarFeed,
    offered: (offer) => offer.calendarFeed,
  },
  {
    id: "passkeys",
    title: (locale) => DESK_WORDS[locale].passkeys,
    path: (locale) => TEAM_PATHS[locale].passkeys,
    count: (counts, locale) => ({
      value: counts.passkeys,
      label: DESK_WORDS[locale].countLabel.passkeys(counts.passkeys),
    }),
  },
  {
    id: "webhooks",
    title: () => "Webhooks",
    path: (locale) => TEAM_PATHS[locale].webhooks,
    offered: (offer) => offer.webhooks,
  },
  {
    id: "audit",
    title: (locale) => DESK_WORDS[locale].audit,
    path: (locale) => TEAM_PATHS[locale].audit,
  },
];

/** What the frame of a desk page shows besides the page. */
export interface DeskFrame {
  /** The page's language. */
  locale: TeamLocale;
  /** The section the page belongs to (its entry is marked current). */
  current: string;
  /** The counts beside the sections. */
  counts: DeskSectionCounts;
  /** The sections the service offers. */
  offer: DeskOffer;
  /** Whether the page is the section's own (`page`) or one of its records (`true`). */
  depth?: "page" | "record";
}

/**
 * The navigation of the desk's sections: each a link with its count, the current one marked.
 *
 * @param frame The language, the current section, the counts and the offered sections.
 * @param sections The sections. @default {DESK_SECTIONS}
 */
export function renderDeskNav(frame: DeskFrame, sections = DESK_SECTIONS): string {
  const { locale } = frame;
  const items = sections.filter((section) => section.offered?.(frame.offer) ?? true).map(
    (section) => {
      const counted = section.count?.(frame.counts, locale);
      const count = counted && counted.value > 0
        ? ` <span class="count">${counted.value}<span class="visually-hidden"> (${
          escapeHtml(counted.label)
        })</span></span>`
        : "";
      const current = section.id !== frame.current
        ? ""
        : frame.depth === "record"
        ? ' aria-current="true"'
        : ' aria-current="page"';
      return `<li><a href="${section.path(locale)}" data-section="${section.id}"${current}>${
        escapeHtml(section.title(locale))
      }${count}</a></li>`;
    },
  );
  return `<nav class="desk-nav" aria-label="${DESK_WORDS[locale].sections}"><ul>${
    items.join("")
  }</ul></nav>`;
}

/**
 * A desk page in its frame: the sections' navigation beside the page's content.
 *
 * @param frame The navigation's state.
 * @param contentHtml The page, already HTML (its `<h1>` first).
 * @returns The content of `<main>`.
 */
export function renderDeskFrame(frame: DeskFrame, contentHtml: string): string {
  return `<div class="desk wide">\n${
    renderDeskNav(frame)
  }\n<div class="desk-page">\n${contentHtml}\n</div>\n</div>`;
}

/**
 * The desk header's tools: who is signed in, and the form that signs out.
 *
 * @param locale The desk's language.
 * @param session The member's address and the session's form token.
 */
export function renderDeskTools(
  locale: TeamLocale,
  session: { email: string; formToken: string },
): string {
  const words = DESK_WORDS[locale];
  return `<p class="desk-member">${escapeHtml(words.signedInAs(session.email))}</p>${
    postForm(
      session,
      TEAM_PATHS[locale].signOut,
      `<button type="submit" class="secondary small-button">${words.signOut}</button>`,
    )
  }`;
}
