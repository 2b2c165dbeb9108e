/**
 * Signed links for booking actions (confirm, decline, cancel), the attendee's booking page and its
 * calendar file (view, invite) and the attendee's reschedule link:
 * an HMAC-SHA-256 (Web Crypto) of the action and the booking's id (and, for reschedule, the
 * booking's SEQUENCE), so a link cannot be forged or turned to another booking or action. The page
 * a link opens only shows a button or a form; only the POST it sends acts, so mail scanners that
 * prefetch links change nothing. A page's link is exchanged for a cookie of that page and booking
 * (see {@linkcode toLinkCookieName} and {@linkcode LINK_COOKIE_MAX_AGE_SECONDS}), which opens the
 * page's URL without its signature.
 *
 * @module
 */
import { loadOnce } from "../load_once.ts";

/** The actions that change a booking: a signed link's page shows a button that POSTs them. */
export const BOOKING_TRANSITIONS = ["confirm", "decline", "cancel"] as const;

/** One of the transitions (what `applyBookingAction` applies). */
export type BookingAction = typeof BOOKING_TRANSITIONS[number];

/**
 * The attendee's pages that only read a booking: `view`, the booking as the attendee sees it
 * (where the booking form's `303` leads: what, when, where, the calendar links, the reschedule
 * and cancel links), and `invite`, its calendar file (`text/calendar`, the e-mailed invite's UID).
 */
export const BOOKING_VIEWS = ["view", "invite"] as const;

/** One of the views. */
export type BookingView = typeof BOOKING_VIEWS[number];

/** The actions a signed link can carry: each has a page at `/booking/<action>`. */
export const BOOKING_ACTIONS = [...BOOKING_TRANSITIONS, ...BOOKING_VIEWS] as const;

/** One of the actions a signed link carries: a transition or a view. */
export type BookingLinkAction = typeof BOOKING_ACTIONS[number];

/**
 * Whether a link's action changes a booking (its page's POST does), rather than only reading it.
 *
 * @param action An action.
 */
export function isBookingTransition(action: BookingLinkAction): action is BookingAction {
  return (BOOKING_TRANSITIONS as readonly string[]).includes(action);
}

/** Where the action pages live: `/booking/<action>?id=…&sig=…`. */
export const ACTION_PATH_PREFIX = "/booking/";

/**
 * Where the attendee's reschedule page lives: `/booking/reschedule?id=…&seq=…&sig=…`. The link
 * names the booking's SEQUENCE when it was sent: once the booking changes again (moved, cancelled),
 * the e-mails that carried it are out of date and so is the link.
 */
export const RESCHEDULE_PATH = `${ACTION_PATH_PREFIX}reschedule`;

/**
 * How long the cookie a signed link is exchanged for keeps its page open, in seconds: an hour.
 * Opening a signed link answers `303 See Other` to the page's URL without its signature, with a
 * cookie that carries it (so the signature is neither in the address bar, the history nor a
 * `Referer`, and the page may be a plain page to crawlers that never hold the cookie). A bounded
 * `Max-Age` rather than a session cookie, because browsers that restore their last session keep
 * session cookies for weeks: an hour covers a visit (reading, choosing a time, going back and
 * forth), and a shared or borrowed device does not keep the booking open to its next user; the
 * e-mail's link opens the page again at any time.
 */
export const LINK_COOKIE_MAX_AGE_SECONDS = 3600;

/**
 * The name of the cookie that opens one signed page: `booking-<action>-<id>`, and
 * `booking-reschedule-<id>-<sequence>` for a reschedule page, so that two bookings, or the view
 * and the cancel page of one booking, open in two tabs do not overwrite each other's cookie. The
 * characters are those of a cookie-name token (RFC 6265, section 4.1.1): letters, digits and `-`.
 *
 * @param page The page: an action with a page of its own, or `reschedule`.
 * @param bookingId The booking's id (a ULID).
 * @param sequence The booking's SEQUENCE the reschedule link names; only for `reschedule`.
 * @returns The cookie's name, e.g. `booking-view-01KZ0000000000000000000000`.
 */
export function toLinkCookieName(
  page: BookingLinkAction | "reschedule",
  bookingId: string,
  sequence?: number,
): string {
  const name = `booking-${page}-${bookingId}`;
  return page === "reschedule" ? `${name}-${sequence ?? 0}` : name;
}

const encoder = new TextEncoder();

/**
 * Bytes as base64url without padding (RFC 4648, section 5), as signatures, tokens and WebAuthn's
 * JSON write them.
 *
 * @param bytes The bytes.
 * @returns Their base64url text, e.g. 43 characters for 32 bytes.
 */
export function toBase64Url(bytes: ArrayBuffer | Uint8Array): string {
  let binary = "";
  for (const byte of bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * The bytes of a base64url text of any length, with or without its padding.
 *
 * @param text The text.
 * @returns Its bytes, or `undefined` when it is not base64url.
 */
export function decodeBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  const bare = text.replace(/={1,2}$/, "");
  if (!/^[A-Za-z0-9_-]*$/.test(bare) || bare.length % 4 === 1) return undefined;
  const binary = atob(bare.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

/**
 * The 32 bytes of a 43-character base64url text (a signature or a token), in its canonical
 * spelling only: the last character carries two bits that are not data, and a text whose two bits
 * are not zero (another spelling of the same bytes, e.g. `…B` for `…A`) is refused, so that a
 * signed link has exactly one valid form (RFC 4648, section 3.5).
 *
 * @param text The text.
 * @returns Its bytes, or `undefined` when it is not the canonical base64url of 32 bytes.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const bytes = decodeBase64Url(text);
  return bytes && toBase64Url(bytes) === text ? bytes : undefined;
}

/** Signs and checks booking links with one secret. */
export interface LinkSigner {
  /** The signature of an action on a booking, base64url (43 characters). */
  sign(action: BookingLinkAction, bookingId: string): Promise<string>;
  /** Whether `signature` is that of the action on the booking (compared in constant time). */
  verify(action: BookingLinkAction, bookingId: string, signature: string): Promise<boolean>;
  /** The absolute URL of the action's page. */
  buildUrl(baseUrl: string, action: BookingLinkAction, bookingId: string): Promise<string>;
  /**
   * Whether `signature` is that of the reschedule link of a booking at a SEQUENCE (compared in
   * constant time).
   */
  verifyReschedule(bookingId: string, sequence: number, signature: string): Promise<boolean>;
  /**
   * The absolute URL of a booking's reschedule page, for the booking at `sequence`:
   * `<baseUrl>/booking/reschedule?id=…&seq=…&sig=…`.
   */
  buildRescheduleUrl(baseUrl: string, bookingId: string, sequence: number): Promise<string>;
}

/**
 * Creates a signer over a secret that is read once, when first needed.
 *
 * @param readSecret Resolves to the secret (e.g. `STUDIO_SECRET`, or one kept in the store).
 */
export function createLinkSigner(readSecret: () => Promise<string>): LinkSigner {
  // A secret that cannot be read now (the store is busy) is read again by the next signature.
  const readKey = loadOnce(async () =>
    crypto.subtle.importKey(
      "raw",
      encoder.encode(await readSecret()),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    )
  );
  // A fixed label, not SERVICE_NAME: renaming the service must not void the links already sent.
  const message = (action: BookingLinkAction, bookingId: string) =>
    encoder.encode(`studio-website:booking:${action}:${bookingId}`);
  // Ids are ULIDs and actions have no colon: no reschedule message reads as another's.
  const rescheduleMessage = (bookingId: string, sequence: number) =>
    encoder.encode(`studio-website:booking:reschedule:${bookingId}:${sequence}`);
  const signer: LinkSigner = {
    async sign(action, bookingId) {
      return toBase64Url(
        await crypto.subtle.sign("HMAC", await readKey(), message(action, bookingId)),
      );
    },
    async verify(action, bookingId, signature) {
      const bytes = fromBase64Url(signature);
      if (!bytes) return false;
      return await crypto.subtle.verify("HMAC", await readKey(), bytes, message(action, bookingId));
    },
    async verifyReschedule(bookingId, sequence, signature) {
      const bytes = fromBase64Url(signature);
      if (!bytes) return false;
      const signed = rescheduleMessage(bookingId, sequence);
      return await crypto.subtle.verify("HMAC", await readKey(), bytes, signed);
    },
    async buildRescheduleUrl(baseUrl, bookingId, sequence) {
      const signature = toBase64Url(
        await crypto.subtle.sign("HMAC", await readKey(), rescheduleMessage(bookingId, sequence)),
      );
      const query = new URLSearchParams({ id: bookingId, seq: String(sequence), sig: signature });
      return `${baseUrl}${RESCHEDULE_PATH}?${query}`;
    },
    async buildUrl(baseUrl, action, bookingId) {
      const signature = await signer.sign(action, bookingId);
      const query = new URLSearchParams({ id: bookingId, sig: signature });
      return `${baseUrl}${ACTION_PATH_PREFIX}${action}?${query}`;
    },
  };
  return signer;
}
