/**
 * The desk's pages of lists: the overview (what waits for the team), the inquiries and the
 * bookings a page at a time with their search and filters, and the audit trail. Each row leads to
 * its record's page; every control is a link or a GET form, so that paging, searching and
 * filtering work without JavaScript.
 *
 * @module
 */
import { escapeHtml } from "../mail/mail.ts";
import type { BookingRecord } from "../booking/booking_mail.ts";
import { type InquiryRecord, readInquiryState } from "../contact/inquiries.ts";
import type { AuditEntry } from "./audit_trail.ts";
import {
  BOOKING_FILTERS,
  DESK_AUDIT_SCAN_LIMIT,
  DESK_SCAN_LIMIT,
  DESK_SEARCH_LIMIT,
  type DeskList,
  INQUIRY_FILTERS,
  toDeskStatus,
} from "./desk_data.ts";
import { DESK_WORDS } from "./desk_words.ts";
import { type DeskView, formatTime, renderBadge, renderNotice, renderTime } from "./render_desk.ts";
import { isRecordId, TEAM_PATHS, type TeamLocale, toRecordPath } from "./team.ts";

/** What a list page was asked for: the search, the filter, the page. */
export interface ListQuery {
  /** The search, as the desk keeps it (see `toSearch`). */
  search?: string;
  /** The filter: an inquiry's state, or a booking filter. */
  filter?: string;
}

/** A list page's address with its query: the search and filter kept, and `page` when past 1. */
function buildListHref(path: string, query: ListQuery & { page?: number }): string {
  const fields = new URLSearchParams();
  if (query.search) fields.set("q", query.search);
  if (query.filter) fields.set("show", query.filter);
  if (query.page && query.page > 1) fields.set("page", String(query.page));
  const text = fields.toString();
  return escapeHtml(text ? `${path}?${text}` : path);
}

/** A number in the desk's language, e.g. `2 000` or `2,000`. */
function formatCount(count: number, locale: TeamLocale): string {
  return new Intl.NumberFormat(DESK_WORDS[locale].intlLocale).format(count);
}

/** The first characters of a text on one line, for a row. */
function toSnippet(text: string, characters = 140): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > characters ? `${line.slice(0, characters - 1).trimEnd()}…` : line;
}

/** A booking's badge: its status in words, in its tone. */
export function renderBookingBadge(view: DeskView, record: BookingRecord): string {
  const status = toDeskStatus(record, view.nowEpochMs);
  return renderBadge(status, DESK_WORDS[view.locale].status[status]);
}

/** An inquiry's badge: open or answered. */
export function renderInquiryBadge(view: DeskView, record: InquiryRecord): string {
  const state = readInquiryState(record);
  return renderBadge(state, DESK_WORDS[view.locale][state]);
}

/** A booking's row: its badge, the person (a link to its page), the topic, the time. */
function renderBookingRow(view: DeskView, record: BookingRecord): string {
  const when = formatTime(record.startEpochMs, view.locale, view.timeZone);
  return [
    `<li id="booking-${record.id}" class="row">`,
    `<span class="row-status">${renderBookingBadge(view, record)}</span>`,
    `<span class="row-main"><a class="row-title" href="${
      toRecordPath(view.locale, "bookingRecord", record.id)
    }">${escapeHtml(record.name)}</a><span class="row-sub">${escapeHtml(record.email)}${
      record.company ? ` · ${escapeHtml(record.company)}` : ""
    }</span></span>`,
    `<span class="row-text">${escapeHtml(toSnippet(record.topic))}</span>`,
    `<span class="row-when">${escapeHtml(when)}</span>`,
    "</li>",
  ].join("");
}

/** An inquiry's row: its badge, the person (a link to its page), the message, when received. */
function renderInquiryRow(view: DeskView, record: InquiryRecord): string {
  return [
    `<li id="inquiry-${record.id}" class="row">`,
    `<span class="row-status">${renderInquiryBadge(view, record)}</span>`,
    `<span class="row-main"><a class="row-title" href="${
      toRecordPath(view.locale, "inquiryRecord", record.id)
    }">${escapeHtml(record.fields.Name)}</a><span class="row-sub">${
      escapeHtml(record.fields.Email)
    }</span></span>`,
    `<span class="row-text">${escapeHtml(toSnippet(record.fields.Message))}</span>`,
    `<span class="row-when">${renderTime(record.receivedAt, view)}</span>`,
    "</li>",
  ].join("");
}

/** Rows in a list, or the words for none. */
function renderRows(rows: string[], empty: string): string {
  return rows.length
    ? `<ol class="desk-list">${rows.join("\n")}</ol>`
    : `<p class="empty">${empty}</p>`;
}

/** The links to the previous and next page, and where this one is; none for a single page. */
function renderPager(view: DeskView, path: string, list: DeskList<unknown>, query: ListQuery) {
  if (list.pageCount <= 1) return "";
  const words = DESK_WORDS[view.locale];
  const link = (page: number, rel: "prev" | "next", text: string) =>
    page < 1 || page > list.pageCount
      ? `<span class="pager-end">${text}</span>`
      : `<a rel="${rel}" href="${buildListHref(path, { ...query, page })}">${text}</a>`;
  return `<nav class="pager" aria-label="${words.pagination}">${
    link(list.page - 1, "prev", `← ${words.previousPage}`)
  }<span aria-current="page">${words.pageOf(list.page, list.pageCount)}</span>${
    link(list.page + 1, "next", `${words.nextPage} →`)
  }</nav>`;
}

/** The search form of a list: a GET that keeps the filter. */
function renderSearch(view: DeskView, path: string, query: ListQuery): string {
  const words = DESK_WORDS[view.locale];
  return [
    `<form method="get" action="${path}" role="search" class="desk-search">`,
    `<div class="field"><label for="search">${words.listSearchLabel}</label>`,
    `<input id="search" name="q" type="search" value="${escapeHtml(query.search ?? "")}"></div>`,
    query.filter ? `<input type="hidden" name="show" value="${escapeHtml(query.filter)}">` : "",
    `<button type="submit" class="secondary">${words.search}</button>`,
    "</form>",
  ].join("");
}

/** The filters of a list as links (the current one marked), each keeping the search. */
function renderFilters(
  view: DeskView,
  path: string,
  query: ListQuery,
  filters: ReadonlyArray<[string | undefined, string]>,
): string {
  const words = DESK_WORDS[view.locale];
  const items = filters.map(([filter, label]) =>
    `<li><a href="${buildListHref(path, { search: query.search, filter })}"${
      filter === query.filter ? ' aria-current="page"' : ""
    }>${escapeHtml(label)}</a></li>`
  );
  return `<nav class="filters" aria-label="${words.filterLabel}"><ul>${items.join("")}</ul></nav>`;
}

/** The line above a list's rows: how many matched, the search and its way back, the bound. */
function renderSummary(view: DeskView, path: string, list: DeskList<unknown>, query: ListQuery) {
  const words = DESK_WORDS[view.locale];
  const limit = query.search ? DESK_SEARCH_LIMIT : DESK_SCAN_LIMIT;
  return `<p class="list-summary">${words.results(list.total)}${
    query.search
      ? ` · ${escapeHtml(words.searching(query.search))} <a href="${
        buildListHref(path, { filter: query.filter })
      }">${words.clearSearch}</a>`
      : ""
  }${list.limited ? ` · ${words.limitedScan(formatCount(limit, view.locale))}` : ""}</p>`;
}

/** What a list page shows: its title, path, filters, rows and what it says when it has none. */
interface ListPage {
  title: string;
  path: string;
  filters: Array<[string | undefined, string]>;
  rows: string[];
  empty: string;
}

/** A list page: its title, notice, filters and search, summary, rows and pager. */
function renderListPage<T>(
  view: DeskView,
  list: DeskList<T>,
  query: ListQuery,
  page: ListPage,
): string {
  const { path } = page;
  return [
    `<h1>${page.title}</h1>`,
    renderNotice(view),
    `<div class="list-tools">${renderFilters(view, path, query, page.filters)}${
      renderSearch(view, path, query)
    }</div>`,
    renderSummary(view, path, list, query),
    renderRows(
      page.rows,
      query.search || query.filter ? DESK_WORDS[view.locale].nothingFound : page.empty,
    ),
    renderPager(view, path, list, query),
  ].filter(Boolean).join("\n");
}

/**
 * The inquiries' page: its search, its filters by state, a page of rows and the pager.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param list The page of inquiries.
 * @param query What was asked for.
 * @returns The page's content.
 */
export function renderInquiryList(
  view: DeskView,
  list: DeskList<InquiryRecord>,
  query: ListQuery,
): string {
  const words = DESK_WORDS[view.locale];
  return renderListPage(view, list, query, {
    title: words.inquiries,
    path: TEAM_PATHS[view.locale].inquiries,
    filters: [
      [undefined, words.all],
      ...INQUIRY_FILTERS.map((state): [string, string] => [state, words.inquiryFilters[state]]),
    ],
    rows: list.records.map((record) => renderInquiryRow(view, record)),
    empty: words.noInquiries,
  });
}

/**
 * The bookings' page: its search, its filters (awaiting confirmation, upcoming, past), a page of
 * rows and the pager.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param list The page of bookings.
 * @param query What was asked for.
 * @returns The page's content.
 */
export function renderBookingList(
  view: DeskView,
  list: DeskList<BookingRecord>,
  query: ListQuery,
): string {
  const words = DESK_WORDS[view.locale];
  return renderListPage(view, list, query, {
    title: words.bookings,
    path: TEAM_PATHS[view.locale].bookings,
    filters: [
      [undefined, words.all],
      ...BOOKING_FILTERS.map((show): [string, string] => [show, words.bookingFilters[show]]),
    ],
    rows: list.records.map((record) => renderBookingRow(view, record)),
    empty: words.noBookings,
  });
}

/** What the overview shows: the first rows and totals of what waits. */
export interface DeskOverview {
  /** Requests waiting for confirmation. */
  pending: DeskList<BookingRecord>;
  /** Accepted bookings not yet over. */
  upcoming: DeskList<BookingRecord>;
  /** Inquiries not yet answered. */
  open: DeskList<InquiryRecord>;
}

/** The rows the overview shows of each list. */
const OVERVIEW_ROWS = 5;

/** One figure of the overview: a count that leads to its list. */
function renderStat(href: string, count: number, label: string): string {
  return `<li><a class="stat" href="${
    escapeHtml(href)
  }"><span class="stat-value">${count}</span> <span class="stat-label">${
    escapeHtml(label)
  }</span></a></li>`;
}

/**
 * The overview: the counts of what waits, each leading to its list, then the first requests to
 * confirm, inquiries to answer and conversations to come.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param overview The first page of each list.
 * @returns The page's content.
 */
export function renderOverview(view: DeskView, overview: DeskOverview): string {
  const words = DESK_WORDS[view.locale];
  const paths = TEAM_PATHS[view.locale];
  const { pending, upcoming, open } = overview;
  const part = (title: string, id: string, rows: string[], more: string) =>
    rows.length
      ? [
        `<section class="desk-part" aria-labelledby="${id}">`,
        `<h2 id="${id}">${title}</h2>`,
        renderRows(rows.slice(0, OVERVIEW_ROWS), ""),
        `<p class="more"><a href="${escapeHtml(more)}">${escapeHtml(words.seeAll(title))}</a></p>`,
        "</section>",
      ].join("\n")
      : "";
  const parts = [
    part(
      words.needsAttention,
      "pending",
      pending.records.map((record) => renderBookingRow(view, record)),
      `${paths.bookings}?show=pending`,
    ),
    part(
      words.openInquiries,
      "open-inquiries",
      open.records.map((record) => renderInquiryRow(view, record)),
      `${paths.inquiries}?show=open`,
    ),
    part(
      words.nextConversations,
      "upcoming",
      upcoming.records.map((record) => renderBookingRow(view, record)),
      `${paths.bookings}?show=upcoming`,
    ),
  ].filter(Boolean);
  return [
    `<h1>${words.overview}</h1>`,
    renderNotice(view),
    `<p class="lead">${words.overviewLead}</p>`,
    `<ul class="stats">${
      [
        renderStat(`${paths.bookings}?show=pending`, pending.total, words.bookingFilters.pending),
        renderStat(`${paths.inquiries}?show=open`, open.total, words.openInquiries),
        renderStat(`${paths.bookings}?show=upcoming`, upcoming.total, words.upcoming),
      ].join("")
    }</ul>`,
    parts.length ? parts.join("\n") : `<p class="empty">${words.nothingWaiting}</p>`,
  ].filter(Boolean).join("\n");
}

/** The page an audit entry's subject has, by the action: a booking's or an inquiry's. */
function toSubjectPath(locale: TeamLocale, entry: AuditEntry): string | undefined {
  if (!entry.subject || !isRecordId(entry.subject)) return undefined;
  if (["confirm", "decline", "cancel"].includes(entry.action)) {
    return toRecordPath(locale, "bookingRecord", entry.subject);
  }
  if (entry.action.startsWith("inquiry-")) {
    return toRecordPath(locale, "inquiryRecord", entry.subject);
  }
  return undefined;
}

/**
 * One audit entry as a line: when, who, what, and the record (a link to its page).
 *
 * @param view The language and zone.
 * @param entry The entry.
 * @param options `subject`: whether to name the record (not on the record's own page).
 */
export function renderAuditLine(
  view: Pick<DeskView, "locale" | "timeZone">,
  entry: AuditEntry,
  options: { subject: boolean } = { subject: true },
): string {
  const words = DESK_WORDS[view.locale];
  const details = entry.details
    ? ` (${Object.entries(entry.details).map(([key, value]) => `${key}: ${value}`).join(", ")})`
    : "";
  const path = toSubjectPath(view.locale, entry);
  const subject = !options.subject || !entry.subject
    ? ""
    : path
    ? ` <a href="${path}"><code>${escapeHtml(entry.subject)}</code></a>`
    : ` <code>${escapeHtml(entry.subject)}</code>`;
  return `${renderTime(entry.at, view)} · ${escapeHtml(entry.actor)} ${
    words.auditActions[entry.action]
  }${subject}${escapeHtml(details)}`;
}

/**
 * The audit trail's page: a page of entries, newest first, and the pager.
 *
 * @param view The language, zone, member, form token, notice and time.
 * @param list The page of entries.
 * @returns The page's content.
 */
export function renderAuditList(view: DeskView, list: DeskList<AuditEntry>): string {
  const words = DESK_WORDS[view.locale];
  const path = TEAM_PATHS[view.locale].audit;
  return [
    `<h1>${words.audit}</h1>`,
    `<p class="lead">${words.auditLead}</p>`,
    list.records.length
      ? `<ol class="audit-list">${
        list.records.map((entry) => `<li>${renderAuditLine(view, entry)}</li>`).join("\n")
      }</ol>`
      : `<p class="empty">${words.noAudit}</p>`,
    list.limited
      ? `<p class="small">${words.limitedScan(formatCount(DESK_AUDIT_SCAN_LIMIT, view.locale))}</p>`
      : "",
    renderPager(view, path, list, {}),
  ].filter(Boolean).join("\n");
}
