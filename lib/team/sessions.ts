/**
 * The team's sessions: kept in the store (so any one can be revoked), named by a random id that
 * only the member's cookie holds (the store keeps its digest), ending after an hour without use
 * or twelve hours after sign-in, and void once the member signs out everywhere (the member's
 * generation is raised) or leaves the team. Every sign-out also voids the member's unused
 * sign-in links (their link generation is raised). The cookie is `__Host-` prefixed and `Secure` when the
 * site is served over https, always `HttpOnly` and `SameSite=Strict`; it is set only by the
 * answers to POSTs (sign-in, sign-out), never by a GET.
 *
 * @module
 */
import { parse, serialize, type SerializeOptions } from "cookie";
import { sha256Hex } from "../store/digest.ts";
import type { AtomicOperation } from "../store/store.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import { addAuditEntry } from "./audit_trail.ts";
import {
  createSecretToken,
  isSecretToken,
  type MemberRecord,
  SESSION_IDLE_MILLISECONDS,
  SESSION_MAX_MILLISECONDS,
  TEAM_MEMBER_PREFIX,
  TEAM_SESSION_PREFIX,
  type TeamServices,
} from "./team.ts";

/** A session as stored, under the digest of its id. */
export interface SessionRecord {
  /** The member signed in. */
  email: string;
  /** The member's generation at sign-in. */
  generation: number;
  /** When the member signed in, epoch milliseconds. */
  createdAtEpochMs: number;
  /** When the session was last used, epoch milliseconds (kept to the minute). */
  lastSeenAtEpochMs: number;
  /**
   * A random token that every form of the desk carries and every POST must return: a second
   * guard against cross-site requests, besides the Origin rule and `SameSite=Strict`.
   */
  formToken: string;
}

/** A session in use: its record and its id. */
export interface TeamSession extends SessionRecord {
  /** The id the cookie holds. */
  id: string;
}

/** How often a session's last use is written, at most, in milliseconds. */
const TOUCH_MILLISECONDS = 60_000;

async function toSessionKey(sessionId: string) {
  return [...TEAM_SESSION_PREFIX, await sha256Hex(sessionId)] as const;
}

/**
 * Adds a new session for a member to `operation`.
 *
 * @param services The team's ports.
 * @param operation The sign-in's operation.
 * @param member The member and their generation.
 * @returns The new id and its record.
 */
export async function createSession(
  services: Pick<TeamServices, "clock">,
  operation: AtomicOperation,
  member: { email: string; generation: number },
): Promise<{ sessionId: string; session: SessionRecord }> {
  const sessionId = createSecretToken();
  const nowEpochMs = services.clock.now().epochMilliseconds;
  const session: SessionRecord = {
    email: member.email,
    generation: member.generation,
    createdAtEpochMs: nowEpochMs,
    lastSeenAtEpochMs: nowEpochMs,
    formToken: createSecretToken(),
  };
  operation.check({ key: await toSessionKey(sessionId), versionstamp: null })
    .set(await toSessionKey(sessionId), session, { expireIn: SESSION_MAX_MILLISECONDS });
  return { sessionId, session };
}

/**
 * The session a cookie names, if it is still good: stored, used within the idle time, within its
 * absolute lifetime, of the member's current generation, for a member still on the team. Its last
 * use is written at most once a minute.
 *
 * @param services The team's ports.
 * @param sessionId The cookie's value.
 * @returns The session, or `undefined`.
 * @throws Whatever the store throws when it cannot be read.
 */
export async function readSession(
  services: TeamServices,
  sessionId: string | undefined,
): Promise<TeamSession | undefined> {
  if (!sessionId || !isSecretToken(sessionId)) return undefined;
  const key = await toSessionKey(sessionId);
  const entry = await services.store.get<SessionRecord>(key);
  const session = entry.value;
  if (!session) return undefined;
  const nowEpochMs = services.clock.now().epochMilliseconds;
  if (
    nowEpochMs - session.lastSeenAtEpochMs >= SESSION_IDLE_MILLISECONDS ||
    nowEpochMs - session.createdAtEpochMs >= SESSION_MAX_MILLISECONDS ||
    !services.team.members.has(session.email)
  ) {
    return undefined;
  }
  const member = await services.store.get<MemberRecord>([
    ...TEAM_MEMBER_PREFIX,
    await sha256Hex(session.email),
  ]);
  if ((member.value?.generation ?? 0) !== session.generation) return undefined;
  if (nowEpochMs - session.lastSeenAtEpochMs >= TOUCH_MILLISECONDS) {
    const touched = { ...session, lastSeenAtEpochMs: nowEpochMs };
    // A lost write only shortens the idle time; a session signed out meanwhile stays out.
    await services.store.atomic().check(entry).set(key, touched, {
      expireIn: Math.max(1, session.createdAtEpochMs + SESSION_MAX_MILLISECONDS - nowEpochMs),
    }).commit().catch(() => undefined);
  }
  return { ...session, id: sessionId };
}

/**
 * Signs a session out: deletes it and raises the member's link generation, which voids every
 * sign-in link not yet used; with `everywhere` also raises the member's generation, which voids
 * every other session. Recorded in the audit trail.
 *
 * @param services The team's ports.
 * @param session The session signing out.
 * @param options `everywhere`: sign out every session of the member.
 * @throws Whatever the store throws once its retries are spent.
 */
export async function signOut(
  services: TeamServices,
  session: TeamSession,
  options: { everywhere: boolean },
): Promise<void> {
  const memberKey = [...TEAM_MEMBER_PREFIX, await sha256Hex(session.email)] as const;
  for (let attempt = 0; attempt < 5; attempt++) {
    const member = await services.store.get<MemberRecord>(memberKey);
    const generation = member.value?.generation ?? 0;
    const raised: MemberRecord = {
      generation: options.everywhere ? generation + 1 : generation,
      linkGeneration: (member.value?.linkGeneration ?? 0) + 1,
    };
    const operation = services.store.atomic().delete(await toSessionKey(session.id))
      .check(member).set(memberKey, raised);
    addAuditEntry(operation, services.clock.now(), {
      actor: session.email,
      action: options.everywhere ? "sign-out-everywhere" : "sign-out",
    });
    if ((await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) return;
  }
  throw new Error("Team member changed concurrently too often");
}

/** The cookie's name: `__Host-` prefixed where the site is served over https. */
export function toSessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith("https:") ? "__Host-studio-team" : "studio-team";
}

/** The attributes of the session's cookie: the `__Host-` prefix's rules, and strict. */
function cookieOptions(baseUrl: string, maxAgeSeconds: number): SerializeOptions {
  return {
    path: "/",
    maxAge: maxAgeSeconds,
    httpOnly: true,
    sameSite: "strict",
    secure: baseUrl.startsWith("https:"),
  };
}

/**
 * The `Set-Cookie` value that holds a new session: `Path=/`, no `Domain`, `HttpOnly`,
 * `SameSite=Strict`, `Secure` over https, and a `Max-Age` of the session's absolute lifetime.
 *
 * @param baseUrl The public origin, e.g. `https://studio.example` (https makes the cookie
 * `__Host-` prefixed and `Secure`).
 * @param sessionId The new session's id.
 * @returns The field's value, e.g. `studio-team=…; Max-Age=43200; Path=/; HttpOnly;
 * SameSite=Strict`.
 */
export function buildSessionCookie(baseUrl: string, sessionId: string): string {
  return serialize(
    toSessionCookieName(baseUrl),
    sessionId,
    cookieOptions(baseUrl, SESSION_MAX_MILLISECONDS / 1000),
  );
}

/** The `Set-Cookie` value that removes the session's cookie (after a sign-out). */
export function buildClearedCookie(baseUrl: string): string {
  return serialize(toSessionCookieName(baseUrl), "", cookieOptions(baseUrl, 0));
}

/**
 * The session id a request's `Cookie` field carries, if any.
 *
 * @param request The request.
 * @param baseUrl The public origin (which names the cookie).
 */
export function readSessionCookie(request: Request, baseUrl: string): string | undefined {
  const header = request.headers.get("Cookie");
  return header ? parse(header)[toSessionCookieName(baseUrl)] : undefined;
}

/**
 * Forgets the session a cookie names, if any, without recording a sign-out: done at sign-in, so
 * that a browser's earlier session (or one another person planted in its cookie) does not
 * outlive the new one.
 *
 * @param services The store.
 * @param sessionId The cookie's value.
 * @throws Whatever the store throws.
 */
export async function forgetSession(
  services: Pick<TeamServices, "store">,
  sessionId: string | undefined,
): Promise<void> {
  if (!sessionId || !isSecretToken(sessionId)) return;
  await services.store.delete(await toSessionKey(sessionId));
}
