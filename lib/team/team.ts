/**
 * The team's side of the service: who may sign in to the desk, where its pages live, how long its
 * links and sessions last, and the narrow ports its functions use.
 *
 * Keys: `["team_link", sha256(token)]` holds an e-mailed sign-in link until it expires;
 * `["team_session", sha256(session id)]` a session until its absolute expiry;
 * `["team_member", sha256(address)]` a member's generations: the one signing out everywhere raises
 * (every session and link of an older one is refused) and the links' one every sign-out raises;
 * `["team_sign_in_quota", sha256(address), sha256(client key), window]` the links one client asked
 * for an address in a window; `["team_audit", id]` the audit trail; `["team_passkey", …]` and
 * `["team_passkey_challenge", …]` the members' passkeys and their ceremonies' challenges (see
 * `passkeys.ts`). Tokens and session ids are stored only as digests, so a copy of the store does
 * not sign anyone in.
 *
 * @module
 */
import type { Clock, Logger } from "../ports.ts";
import type { Store } from "../store/store.ts";
import type { Outbox } from "../mail/outbox.ts";
import type { MailAddresses } from "../mail/mail.ts";
import type { TeamSigner } from "./team_signer.ts";
import { toBase64Url } from "../booking/signed_links.ts";

/** The desk's languages. */
export type TeamLocale = "pt" | "en";

/** The team: its members and the signer of their sign-in links. */
export interface TeamSettings {
  /** The members' addresses, bare and lower-cased (`STUDIO_TEAM`, else the inbox's). */
  members: ReadonlySet<string>;
  /** Signs the tokens of sign-in links with the studio's secret. */
  signer: TeamSigner;
}

/** What the team's functions use: narrow ports, which the handler's services satisfy. */
export interface TeamServices {
  /** The public origin, for the links of sign-in e-mails and the cookie's `Secure`. */
  baseUrl: string;
  /** Where links, sessions, members' generations and the audit trail are kept. */
  store: Store;
  /** The current time. */
  clock: Clock;
  /** Where sign-ins and failures are logged (addresses never are). */
  logger: Logger;
  /** Queues sign-in e-mails with the link's commit, and delivers them. */
  outbox: Outbox;
  /** From, and the domain of Message-IDs. */
  mail: MailAddresses;
  /** The members and the signer. */
  team: TeamSettings;
}

/**
 * The paths of the desk, its pages and its forms, by language: the overview (`desk`), a page per
 * section (`inquiries`, `bookings`, `personalData`, `calendarFeed`, `passkeys`, `audit`; the
 * personal-data and calendar pages take their forms' POSTs at the same path), a page per record
 * (`…Record`, `:id` a ULID) and the second step of a booking's decline or cancel; the other paths
 * take a form's POST only.
 */
export const TEAM_PATHS = {
  pt: {
    desk: "/equipa",
    inquiries: "/equipa/pedidos",
    inquiryRecord: "/equipa/pedidos/:id",
    bookings: "/equipa/reservas",
    bookingRecord: "/equipa/reservas/:id",
    bookingDecline: "/equipa/reservas/:id/recusar",
    bookingCancel: "/equipa/reservas/:id/cancelar",
    passkeys: "/equipa/chaves",
    audit: "/equipa/registo",
    webhooks: "/equipa/webhooks",
    webhooksTest: "/equipa/webhooks/teste",
    webhooksEnable: "/equipa/webhooks/reativar",
    requestLink: "/equipa/ligacao",
    signIn: "/equipa/entrar",
    signOut: "/equipa/sair",
    booking: "/equipa/reserva",
    inquiry: "/equipa/pedido",
    personalData: "/equipa/dados",
    calendarFeed: "/equipa/agenda",
    passkey: "/equipa/chave",
    passkeyOptions: "/equipa/chave/opcoes",
    passkeySignIn: "/equipa/entrar-com-chave",
    passkeySignInOptions: "/equipa/entrar-com-chave/opcoes",
  },
  en: {
    desk: "/en/team",
    inquiries: "/en/team/inquiries",
    inquiryRecord: "/en/team/inquiries/:id",
    bookings: "/en/team/bookings",
    bookingRecord: "/en/team/bookings/:id",
    bookingDecline: "/en/team/bookings/:id/decline",
    bookingCancel: "/en/team/bookings/:id/cancel",
    passkeys: "/en/team/passkeys",
    audit: "/en/team/audit",
    webhooks: "/en/team/webhooks",
    webhooksTest: "/en/team/webhooks/test",
    webhooksEnable: "/en/team/webhooks/enable",
    requestLink: "/en/team/link",
    signIn: "/en/team/sign-in",
    signOut: "/en/team/sign-out",
    booking: "/en/team/booking",
    inquiry: "/en/team/inquiry",
    personalData: "/en/team/personal-data",
    calendarFeed: "/en/team/calendar-feed",
    passkey: "/en/team/passkey",
    passkeyOptions: "/en/team/passkey/options",
    passkeySignIn: "/en/team/passkey-sign-in",
    passkeySignInOptions: "/en/team/passkey-sign-in/options",
  },
} as const;

/** One of the desk's routes, by its role. */
export type TeamRoute = keyof typeof TEAM_PATHS.pt;

/** The routes whose path names a record by its id (`:id`). */
export type TeamRecordRoute =
  | "inquiryRecord"
  | "bookingRecord"
  | "bookingDecline"
  | "bookingCancel";

/**
 * The path of a record's page: the route's pattern with the record's id in place of `:id`.
 *
 * @param locale The desk's language.
 * @param route A route whose path names a record.
 * @param id The record's id, a ULID (26 characters of Crockford's base 32).
 * @returns E.g. `/en/team/bookings/01KAB3N6Z9Q8W4T2R7YV5XHMJD`.
 */
export function toRecordPath(locale: TeamLocale, route: TeamRecordRoute, id: string): string {
  return TEAM_PATHS[locale][route].replace(":id", encodeURIComponent(id));
}

/**
 * The id a record page's path names, when the path has the route's shape and the id is a ULID.
 *
 * @param locale The desk's language.
 * @param route A route whose path names a record.
 * @param pathname The request's path.
 * @returns The id, or `undefined`.
 */
export function readRecordId(
  locale: TeamLocale,
  route: TeamRecordRoute,
  pathname: string,
): string | undefined {
  const [before, after] = TEAM_PATHS[locale][route].split(":id");
  if (!pathname.startsWith(before) || !pathname.endsWith(after)) return undefined;
  const id = pathname.slice(before.length, pathname.length - after.length);
  return isRecordId(id) ? id : undefined;
}

/** Whether a text is a booking's or an inquiry's id: a ULID. */
export function isRecordId(value: string): boolean {
  return /^[0-9A-Z]{26}$/.test(value);
}

/** How long an e-mailed sign-in link works, in milliseconds: 15 minutes. */
export const SIGN_IN_LINK_MILLISECONDS = 15 * 60_000;

/** A session ends after this long without a request, in milliseconds: an hour. */
export const SESSION_IDLE_MILLISECONDS = 60 * 60_000;

/** A session ends this long after sign-in whatever its use, in milliseconds: 12 hours. */
export const SESSION_MAX_MILLISECONDS = 12 * 3600_000;

/**
 * Sign-in links one client may ask for one address per window: past it, that client is answered
 * 429 for that address, and every other client still gets its links.
 */
export const SIGN_IN_LINKS_PER_CLIENT = 3;

/**
 * Sign-in links all clients together may ask for one address per window, a guard against many
 * clients flooding a mailbox: past it, every client is answered 429 for that address, member or
 * not (so the answer tells no one who is on the team), and says when to try again, rather than
 * answering as usual and sending nothing. A member's own client is not limited by strangers
 * before that: each client has its own {@linkcode SIGN_IN_LINKS_PER_CLIENT}.
 */
export const SIGN_IN_LINKS_PER_ADDRESS = 30;

/** The window of the sign-in quotas, in milliseconds: 15 minutes. */
export const SIGN_IN_WINDOW_MILLISECONDS = 15 * 60_000;

/** Key prefix of sign-in links: `["team_link", sha256(token)]`. */
export const TEAM_LINK_PREFIX = ["team_link"] as const;

/** Key prefix of sessions: `["team_session", sha256(session id)]`. */
export const TEAM_SESSION_PREFIX = ["team_session"] as const;

/** Key prefix of members' generations: `["team_member", sha256(address)]`. */
export const TEAM_MEMBER_PREFIX = ["team_member"] as const;

/**
 * Key prefix of the sign-in quotas: `["team_sign_in_quota", sha256(address), sha256(client key),
 * window]`, a count; an address's for a window is the sum of its clients'.
 */
export const SIGN_IN_QUOTA_PREFIX = ["team_sign_in_quota"] as const;

/** A member's generations, which void older sessions and links. */
export interface MemberRecord {
  /** Raised by signing out everywhere: sessions and links of an older one are refused; 0 before. */
  generation: number;
  /** Raised by every sign-out: links of an older one are refused; absent means 0. */
  linkGeneration?: number;
}

/** 32 random bytes from Web Crypto as base64url: a token or a session id (43 characters). */
export function createSecretToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)).buffer);
}

/** Whether a text has the shape of {@linkcode createSecretToken}'s tokens. */
export function isSecretToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
