/**
 * Signing in to the team's desk by e-mail: a member asks for a link, which the service e-mails
 * (through the outbox, committed with the link's record); the link opens a page whose button
 * POSTs it, and only that POST signs in, once. A link is refused when its signature is not the
 * studio's (forged), after 15 minutes (expired), once used (replayed), or once its member signed
 * out (revoked). Asking answers the same, and as fast, whatever the address, so the form tells no
 * one who is on the team. Each client may ask {@linkcode SIGN_IN_LINKS_PER_CLIENT} times per
 * window for an address, whether or not it is a member's: a budget of its own, so that strangers
 * cannot spend the member's; and all clients together {@linkcode SIGN_IN_LINKS_PER_ADDRESS} times,
 * past which every client is told to wait (429, for any address alike), never silently sent
 * nothing.
 *
 * @module
 */
import { createId } from "../store/ids.ts";
import { sha256Hex } from "../store/digest.ts";
import type { KvEntryMaybe, KvKey } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import type { OutgoingMail } from "../mail/mail.ts";
import { addAuditEntry } from "./audit_trail.ts";
import {
  createSecretToken,
  isSecretToken,
  type MemberRecord,
  SIGN_IN_LINK_MILLISECONDS,
  SIGN_IN_LINKS_PER_ADDRESS,
  SIGN_IN_LINKS_PER_CLIENT,
  SIGN_IN_QUOTA_PREFIX,
  SIGN_IN_WINDOW_MILLISECONDS,
  TEAM_LINK_PREFIX,
  TEAM_MEMBER_PREFIX,
  TEAM_PATHS,
  type TeamLocale,
  type TeamServices,
} from "./team.ts";
import { createSession, type SessionRecord } from "./sessions.ts";

/** A sign-in link as stored, under the digest of its token. */
export interface SignInLinkRecord {
  /** The member it signs in. */
  email: string;
  /** The language of the desk it leads to. */
  locale: TeamLocale;
  /** The member's generation when it was sent. */
  generation: number;
  /** The member's link generation when it was sent (every sign-out raises it); absent means 0. */
  linkGeneration?: number;
  /** Until when it works, epoch milliseconds. */
  expiresAtEpochMs: number;
  /** When it was used, epoch milliseconds: a used link is kept until it expires, and refused. */
  usedAtEpochMs?: number;
}

/** What asking for a link did: the same for every address, unless the client's quota is spent. */
export type SignInRequestOutcome =
  | {
    kind: "accepted";
    /** Stores and e-mails the link if the address is a member's; run once answered. */
    sendLink: () => Promise<void>;
  }
  | { kind: "limited"; retryAfterSeconds: number };

/** Why a link is refused. */
export type LinkRefusal = "forged" | "expired" | "used" | "revoked";

/** What a link is worth. */
export type LinkCheck =
  | { kind: "valid"; record: SignInLinkRecord; entry: KvEntryMaybe<SignInLinkRecord> }
  | { kind: "refused"; reason: LinkRefusal };

const TEXT = {
  pt: {
    subject: "Entrar na secretária do estúdio",
    body: (url: string, minutes: number) => [
      "Olá,",
      "",
      `Para entrar na secretária da equipa, abra esta ligação (serve uma vez, durante ${minutes} minutos) e carregue em «Entrar»:`,
      url,
      "",
      "Se não pediu para entrar, ignore este e-mail: sem a ligação ninguém entra.",
    ],
  },
  en: {
    subject: "Sign in to the studio's desk",
    body: (url: string, minutes: number) => [
      "Hello,",
      "",
      `To sign in to the team's desk, open this link (it works once, for ${minutes} minutes) and press "Sign in":`,
      url,
      "",
      "If you did not ask to sign in, ignore this e-mail: without the link no one signs in.",
    ],
  },
} as const;

/** The member's generation entry (0 when the member never signed out everywhere). */
function readMember(services: TeamServices, email: string) {
  return sha256Hex(email).then((hash) =>
    services.store.get<MemberRecord>([...TEAM_MEMBER_PREFIX, hash])
  );
}

/** The sign-in e-mail: the link, in the language of the form it was asked from. */
function buildSignInMail(
  services: TeamServices,
  email: string,
  url: string,
  locale: TeamLocale,
): OutgoingMail {
  const text = TEXT[locale];
  return {
    messageId: `team-sign-in-${
      createId(services.clock.now().epochMilliseconds)
    }@${services.mail.messageIdDomain}`,
    from: services.mail.from,
    to: [email],
    subject: text.subject,
    text: [...text.body(url, SIGN_IN_LINK_MILLISECONDS / 60_000), "", "—", services.baseUrl]
      .join("\n"),
  };
}

/** What a request that was counted leaves to do once it is answered. */
interface LinkToSend {
  /** The address, trimmed and lower-cased. */
  email: string;
  /** The language of the desk. */
  locale: TeamLocale;
}

/**
 * Stores a new link for a member, and queues its e-mail, in one commit; nothing for any other
 * address. Never rejects: a failure is logged, and the member asks again.
 */
async function sendSignInLink(services: TeamServices, request: LinkToSend): Promise<void> {
  const { email, locale } = request;
  if (!services.team.members.has(email)) return;
  try {
    const token = createSecretToken();
    const signature = await services.team.signer.sign(token);
    const member = await readMember(services, email);
    const record: SignInLinkRecord = {
      email,
      locale,
      generation: member.value?.generation ?? 0,
      linkGeneration: member.value?.linkGeneration ?? 0,
      expiresAtEpochMs: services.clock.now().epochMilliseconds + SIGN_IN_LINK_MILLISECONDS,
    };
    const operation = services.store.atomic()
      .set([...TEAM_LINK_PREFIX, await sha256Hex(token)], record, {
        expireIn: SIGN_IN_LINK_MILLISECONDS,
      });
    const query = new URLSearchParams({ token, sig: signature });
    const url = `${services.baseUrl}${TEAM_PATHS[locale].signIn}?${query}`;
    services.outbox.add(operation, [{
      topic: "team",
      recordId: "sign-in",
      mail: buildSignInMail(services, email, url, locale),
    }]);
    // Nothing is checked, so the commit fails only by throwing.
    await retry(() => operation.commit(), STORE_CONTENTION_RETRY);
    services.outbox.wake();
    services.logger.info("Team sign-in link sent");
  } catch (error) {
    services.logger.error("Sign-in link could not be stored", { error: String(error) });
  }
}

/** The requests counted for an address in `window`, whichever clients asked. */
async function countRequests(
  services: TeamServices,
  addressPrefix: KvKey,
  window: number,
): Promise<number> {
  let count = 0;
  for await (const entry of services.store.list<number>({ prefix: addressPrefix })) {
    if (entry.key.at(-1) === window) count += entry.value;
  }
  return count;
}

/**
 * Asks for a sign-in link for an address: counts the request against the quota of the address
 * and client, the same for every address, and adds up what every client asked for the address
 * (the guard against a flood, which requests arriving at the same instant from new clients can
 * pass by a few).
 *
 * The link itself is stored and e-mailed by the returned `sendLink`, which the caller runs once
 * its answer is handed over: the answer then takes as long for a member's address as for anyone
 * else's, and tells no one by its timing who is on the team.
 *
 * @param services The team's ports.
 * @param request The address as typed (trimmed and lower-cased here), the desk's language, and
 * the client's rate-limit key.
 * @returns `accepted` with `sendLink` for every address within the client's quota and the
 * address's (`sendLink` sends nothing to an address not on the team, and never rejects);
 * `limited` beyond either, with the seconds until the window ends.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function requestSignInLink(
  services: TeamServices,
  request: { email: string; locale: TeamLocale; clientKey: string },
): Promise<SignInRequestOutcome> {
  const email = request.email.trim().toLowerCase();
  const nowEpochMs = services.clock.now().epochMilliseconds;
  const window = Math.floor(nowEpochMs / SIGN_IN_WINDOW_MILLISECONDS);
  const resetMilliseconds = (window + 1) * SIGN_IN_WINDOW_MILLISECONDS - nowEpochMs;
  const addressPrefix: KvKey = [...SIGN_IN_QUOTA_PREFIX, await sha256Hex(email)];
  const clientKey: KvKey = [...addressPrefix, await sha256Hex(request.clientKey), window];
  const expiry = { expireIn: resetMilliseconds + 1000 };
  for (let attempt = 0; attempt < 5; attempt++) {
    const [client, asked] = await Promise.all([
      services.store.get<number>(clientKey),
      countRequests(services, addressPrefix, window),
    ]);
    const count = client.value ?? 0;
    if (count >= SIGN_IN_LINKS_PER_CLIENT || asked >= SIGN_IN_LINKS_PER_ADDRESS) {
      return { kind: "limited", retryAfterSeconds: Math.ceil(resetMilliseconds / 1000) };
    }
    const operation = services.store.atomic().check(client).set(clientKey, count + 1, expiry);
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
      const link = { email, locale: request.locale };
      return { kind: "accepted", sendLink: () => sendSignInLink(services, link) };
    }
  }
  throw new Error("Sign-in quota changed concurrently too often");
}

/**
 * Checks a link without using it: its signature, then its record (present, unused, unexpired,
 * of the member's current generations, so asked since the member last signed out, for a member
 * still on the team).
 *
 * @param services The team's ports.
 * @param link The token and signature of the link's query.
 * @returns The link's record, or why it is refused.
 * @throws Whatever the store throws.
 */
export async function checkSignInLink(
  services: TeamServices,
  link: { token: string; signature: string },
): Promise<LinkCheck> {
  const { token, signature } = link;
  if (!isSecretToken(token) || !await services.team.signer.verify(token, signature)) {
    return { kind: "refused", reason: "forged" };
  }
  const entry = await services.store.get<SignInLinkRecord>([
    ...TEAM_LINK_PREFIX,
    await sha256Hex(token),
  ]);
  const record = entry.value;
  // The store deletes a link some time after it expires: absent, it expired (a used link stays).
  if (!record) return { kind: "refused", reason: "expired" };
  if (record.usedAtEpochMs !== undefined) return { kind: "refused", reason: "used" };
  if (services.clock.now().epochMilliseconds >= record.expiresAtEpochMs) {
    return { kind: "refused", reason: "expired" };
  }
  const member = await readMember(services, record.email);
  if (
    !services.team.members.has(record.email) ||
    (member.value?.generation ?? 0) !== record.generation ||
    (member.value?.linkGeneration ?? 0) !== (record.linkGeneration ?? 0)
  ) {
    return { kind: "refused", reason: "revoked" };
  }
  return { kind: "valid", record, entry };
}

/** What signing in did. */
export type SignInOutcome =
  | { kind: "signed-in"; sessionId: string; session: SessionRecord; locale: TeamLocale }
  | { kind: "refused"; reason: LinkRefusal };

/**
 * Signs in with a link: checks it, then in one commit marks it used, creates a new session (a
 * new id at every sign-in: a session id chosen by anyone else is never adopted) and records the
 * sign-in in the audit trail. A link used at the same moment by two requests signs in once.
 *
 * @param services The team's ports.
 * @param link The token and signature the link page posted.
 * @returns The new session and its id (for the cookie), or why the link is refused.
 * @throws Whatever the store throws.
 */
export async function signIn(
  services: TeamServices,
  link: { token: string; signature: string },
): Promise<SignInOutcome> {
  const checked = await checkSignInLink(services, link);
  if (checked.kind === "refused") return checked;
  const { record, entry } = checked;
  const now = services.clock.now();
  const operation = services.store.atomic().check(entry)
    .set(entry.key, { ...record, usedAtEpochMs: now.epochMilliseconds }, {
      expireIn: Math.max(1, record.expiresAtEpochMs - now.epochMilliseconds),
    });
  const { sessionId, session } = await createSession(services, operation, record);
  addAuditEntry(operation, now, { actor: record.email, action: "sign-in" });
  if (!(await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
    return { kind: "refused", reason: "used" };
  }
  services.logger.info("Team member signed in");
  return { kind: "signed-in", sessionId, session, locale: record.locale };
}
