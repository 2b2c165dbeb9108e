/**
 * Shared support of the desk's end-to-end tests over HTTP: requests to the real server as a
 * browser sends them (forms, `Accept: text/html`, no redirects followed), waiting for e-mail at the
 * loopback SMTP server, signing in by the link read from the mailbox, and reading the desk's page.
 * Internal to tests/.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { RunningServer } from "./_server.ts";
import type { ReceivedMail, TestSmtpServer } from "../_smtp.ts";
import { buildBookingBody } from "../_booking.ts";
import { findFreeStarts } from "./_studio.ts";

/** The `Accept` of a browser's navigation. */
export const HTML = { Accept: "text/html,application/xhtml+xml" } as const;

/** A browser's form post. */
export const FORM = { ...HTML, "Content-Type": "application/x-www-form-urlencoded" } as const;

/** Waits `milliseconds`. */
export const delay = (milliseconds: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Waits for the e-mails matching `match`, at least `count` of them (15 s at most).
 *
 * @returns Every matching e-mail received so far, in order of arrival.
 */
export async function receive(
  smtp: TestSmtpServer,
  match: (mail: ReceivedMail) => boolean,
  count = 1,
): Promise<ReceivedMail[]> {
  const deadline = Date.now() + 15_000;
  while (smtp.messages.filter(match).length < count && Date.now() < deadline) await delay(20);
  const found = smtp.messages.filter(match);
  assert.ok(found.length >= count, `${count} matching e-mail(s), got ${found.length}`);
  return found;
}

/**
 * Matches e-mail by the kind its Message-ID starts with (`attendee-booked`, `team-sign-in` …)
 * and its envelope's recipients (compared without regard to case).
 */
export function byKind(kind: string, to: string): (mail: ReceivedMail) => boolean {
  return (mail) =>
    (mail.parsed.messageId ?? "").startsWith(`<${kind}-`) &&
    mail.envelopeTo.join().toLowerCase() === to.toLowerCase();
}

/** A request to the server at `path` (of the public origin), redirects not followed. */
export function open(server: RunningServer, path: string, init: RequestInit = {}) {
  return fetch(server.origin + path, { redirect: "manual", ...init });
}

/** A form's POST to `path`, as a browser sends it, with extra `headers` (a cookie, Origin). */
export function post(
  server: RunningServer,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return open(server, path, {
    method: "POST",
    headers: { ...FORM, ...headers },
    body: new URLSearchParams(fields),
  });
}

/**
 * Asks for a link by the English sign-in form and reads it from the e-mail that arrives.
 *
 * @param member The member's address.
 * @param baseUrl The server's public origin, which the link starts with.
 */
export async function askForLink(
  server: RunningServer,
  smtp: TestSmtpServer,
  options: { member: string; baseUrl: string },
): Promise<URL> {
  const match = byKind("team-sign-in", options.member);
  const before = smtp.messages.filter(match).length;
  const asked = await post(server, "/en/team/link", { email: options.member });
  assert.equal(asked.status, 200);
  assert.match(await asked.text(), /Check your e-mail/);
  const mails = await receive(smtp, match, before + 1);
  const text = mails.at(-1)?.parsed.text ?? "";
  const link = text.split(/\s+/).find((word) =>
    word.startsWith(`${options.baseUrl}/en/team/sign-in?`)
  );
  assert.ok(link, text);
  return new URL(link);
}

/**
 * Signs in as a member by the e-mailed link (its page, then its button's POST).
 *
 * @returns The session's `Cookie` value, e.g. `__Host-studio-team=…`.
 */
export async function signInByMail(
  server: RunningServer,
  smtp: TestSmtpServer,
  options: { member: string; baseUrl: string },
): Promise<string> {
  const link = await askForLink(server, smtp, options);
  const page = await open(server, link.pathname + link.search, { headers: HTML });
  assert.equal(page.status, 200);
  await page.body?.cancel();
  const signedIn = await post(server, link.pathname, {
    token: link.searchParams.get("token") ?? "",
    sig: link.searchParams.get("sig") ?? "",
  });
  assert.equal(signedIn.status, 303);
  await signedIn.body?.cancel();
  return (signedIn.headers.get("Set-Cookie") ?? "").split(";")[0];
}

/**
 * The desk's HTML for a session's cookie, and the form token its forms carry.
 *
 * @param path The desk's path, `/en/team` by default, with a query if any.
 */
export async function openDesk(
  server: RunningServer,
  cookie: string,
  path = "/en/team",
): Promise<{ html: string; token: string }> {
  const response = await open(server, path, { headers: { ...HTML, Cookie: cookie } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Set-Cookie"), null);
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  const html = await response.text();
  return { html, token: /name="form_token" value="([\w-]+)"/.exec(html)?.[1] ?? "" };
}

/**
 * Books a free slot from next month on over the API.
 *
 * @param attendee The person; `index`: which of the free slots, in order (0: the first);
 * `topic`: the conversation's topic, else the fixture's.
 * @returns The slot's start.
 */
export async function bookNextMonth(
  server: RunningServer,
  attendee: { email: string; name: string; index?: number; topic?: string },
): Promise<string> {
  const index = attendee.index ?? 0;
  const start = (await findFreeStarts(server.origin, { minimum: index + 1 }))[index];
  const response = await open(server, "/api/v1/booking", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(
      buildBookingBody(start, {
        email: attendee.email,
        locale: "en",
        name: attendee.name,
        ...(attendee.topic ? { topic: attendee.topic } : {}),
      }),
    ),
  });
  assert.equal(response.status, 201, await response.clone().text());
  await response.body?.cancel();
  return start;
}
