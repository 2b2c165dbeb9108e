/**
 * Passkeys (WebAuthn) as the team's second way in, over `@simplewebauthn/server`: a member signed
 * in by e-mail registers one from the desk, and later signs in with it from the sign-in page
 * without typing an address (a discoverable credential: the authenticator says whose it is).
 * Signing in by passkey creates a session exactly as the e-mailed link does (a new id, the
 * member's current generation, an audit entry), and is refused for a member no longer on the team.
 *
 * Every ceremony's challenge is stored for {@linkcode PASSKEY_CHALLENGE_MILLISECONDS} and used
 * once: the answer's challenge (read from its client data) is deleted in an atomic commit before
 * the answer is verified, so a replayed or late answer finds nothing. A registration's challenge
 * names the member whose session asked for it, and only that member's session can use it.
 *
 * Keys: `["team_passkey", credential id]` a member's passkey (public key, counter, transports,
 * times; no secret); `["team_passkey_challenge", challenge]` a ceremony's challenge until used or
 * expired. Signing out everywhere ends sessions, not passkeys; a member removes a passkey from
 * the desk.
 *
 * @module
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { decodeBase64Url, toBase64Url } from "../booking/signed_links.ts";
import { sha256Hex } from "../store/digest.ts";
import { retry, STORE_CONTENTION_RETRY } from "../store/retry.ts";
import type { KvEntryMaybe } from "../store/store.ts";
import { addAuditEntry } from "./audit_trail.ts";
import {
  isCredentialId,
  listPasskeys,
  PASSKEY_PREFIX,
  type PasskeyRecord,
} from "./passkey_records.ts";
import { createSession, type SessionRecord, type TeamSession } from "./sessions.ts";
import { type MemberRecord, TEAM_MEMBER_PREFIX, type TeamServices } from "./team.ts";

/** Key prefix of ceremonies' challenges: `["team_passkey_challenge", challenge]`. */
const PASSKEY_CHALLENGE_PREFIX = ["team_passkey_challenge"] as const;

/** How long a ceremony's challenge can be answered, in milliseconds: 5 minutes. */
export const PASSKEY_CHALLENGE_MILLISECONDS = 5 * 60_000;

/** The most passkeys one member may register. */
const PASSKEYS_PER_MEMBER = 10;

/** A ceremony's challenge as stored. */
interface ChallengeRecord {
  /** `register` from the desk, `sign-in` from the sign-in page. */
  purpose: "register" | "sign-in";
  /** For a registration, the member whose session asked. */
  email?: string;
  /** Until when it can be answered, epoch milliseconds. */
  expiresAtEpochMs: number;
}

/** Who the passkeys are for: the site's origin and name. */
export interface RelyingParty {
  /** The public origin, e.g. `https://studio.example`: its host is the passkeys' RP ID. */
  baseUrl: string;
  /** The name authenticators show, e.g. the studio's. */
  name: string;
}

/** Why a passkey answer is refused. */
export type PasskeyRefusal = "invalid" | "expired" | "unknown" | "revoked" | "limit";

/** What registering did. */
export type PasskeyRegistration =
  | { kind: "added"; record: PasskeyRecord }
  | { kind: "refused"; reason: PasskeyRefusal }
  /** The answer's id is not a credential id (see `isCredentialId`): nothing was used. */
  | { kind: "malformed" };

/** What signing in by passkey did. */
export type PasskeySignIn =
  | { kind: "signed-in"; sessionId: string; session: SessionRecord }
  | { kind: "refused"; reason: PasskeyRefusal }
  /** The answer's id is not a credential id (see `isCredentialId`): nothing was used. */
  | { kind: "malformed" };

/**
 * The challenge an answer's client data (base64url JSON) carries.
 *
 * @throws {SyntaxError} When the client data is not base64url of JSON.
 */
function readChallenge(clientDataJSON: string): unknown {
  const bytes = decodeBase64Url(clientDataJSON);
  if (!bytes) throw new SyntaxError("The client data is not base64url");
  return JSON.parse(new TextDecoder().decode(bytes)).challenge;
}

function toRelyingPartyId(baseUrl: string): string {
  return new URL(baseUrl).hostname;
}

function toOrigin(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

/** Stores a new ceremony's challenge. */
async function storeChallenge(
  services: Pick<TeamServices, "store" | "clock">,
  challenge: string,
  record: Omit<ChallengeRecord, "expiresAtEpochMs">,
): Promise<void> {
  const value: ChallengeRecord = {
    ...record,
    expiresAtEpochMs: services.clock.now().epochMilliseconds + PASSKEY_CHALLENGE_MILLISECONDS,
  };
  await retry(
    () =>
      services.store.set([...PASSKEY_CHALLENGE_PREFIX, challenge], value, {
        expireIn: PASSKEY_CHALLENGE_MILLISECONDS,
      }),
    STORE_CONTENTION_RETRY,
  );
}

/**
 * Reads an answer of the browser (`startRegistration()`'s or `startAuthentication()`'s JSON) and
 * uses up its challenge: deleted in one commit with a check, so that one answer of two racing
 * requests gets it. An answer whose id is not a credential id's shape uses nothing.
 *
 * @returns The answer and its challenge's record, or why it is refused (`malformed`: its id).
 */
async function useChallenge<T extends { id: string; response: { clientDataJSON: string } }>(
  services: Pick<TeamServices, "store" | "clock">,
  text: string,
  purpose: ChallengeRecord["purpose"],
): Promise<
  { answer: T; challenge: string; record: ChallengeRecord } | PasskeyRefusal | "malformed"
> {
  let answer: T;
  let challenge: unknown;
  try {
    answer = JSON.parse(text);
    if (typeof answer?.id !== "string" || typeof answer.response?.clientDataJSON !== "string") {
      return "invalid";
    }
    if (!isCredentialId(answer.id)) return "malformed";
    challenge = readChallenge(answer.response.clientDataJSON);
  } catch {
    return "invalid";
  }
  if (typeof challenge !== "string" || challenge.length > 200) return "invalid";
  const entry: KvEntryMaybe<ChallengeRecord> = await services.store.get<ChallengeRecord>([
    ...PASSKEY_CHALLENGE_PREFIX,
    challenge,
  ]);
  const record = entry.value;
  if (!record || record.purpose !== purpose) return "expired";
  const used = await services.store.atomic().check(entry).delete(entry.key).commit();
  if (!used.ok) return "expired";
  if (services.clock.now().epochMilliseconds >= record.expiresAtEpochMs) return "expired";
  return { answer, challenge, record };
}

/**
 * The options of a registration for a signed-in member (for `startRegistration()`), its
 * challenge stored for the member. The member's passkeys are excluded, so an authenticator does
 * not register twice.
 *
 * @param services The team's ports.
 * @param party The site's origin and name.
 * @param session The member's session.
 * @throws Whatever the store throws.
 */
export async function createRegistrationOptions(
  services: TeamServices,
  party: RelyingParty,
  session: TeamSession,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await listPasskeys(services.store, session.email);
  const options = await generateRegistrationOptions({
    rpName: party.name,
    rpID: toRelyingPartyId(party.baseUrl),
    userName: session.email,
    userDisplayName: session.email,
    // The same handle for every passkey of a member, and no address in it.
    userID: new TextEncoder().encode(await sha256Hex(`team-member:${session.email}`)),
    attestationType: "none",
    timeout: PASSKEY_CHALLENGE_MILLISECONDS,
    excludeCredentials: existing.map(({ id, transports }) => ({ id, transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  await storeChallenge(services, options.challenge, {
    purpose: "register",
    email: session.email,
  });
  return options;
}

/**
 * Verifies a registration's answer and stores the passkey, with its audit entry, in one commit.
 *
 * @param services The team's ports.
 * @param party The site's origin and name.
 * @param session The session posting the answer: the challenge must be its member's.
 * @param text The answer of `startRegistration()`, as JSON text.
 * @returns The passkey, why it is refused (`invalid`, `expired`, `limit`), or `malformed`.
 * @throws Whatever the store throws.
 */
export async function registerPasskey(
  services: TeamServices,
  party: RelyingParty,
  session: TeamSession,
  text: string,
): Promise<PasskeyRegistration> {
  const used = await useChallenge<Parameters<typeof verifyRegistrationResponse>[0]["response"]>(
    services,
    text,
    "register",
  );
  if (used === "malformed") return { kind: "malformed" };
  if (typeof used === "string") return { kind: "refused", reason: used };
  if (used.record.email !== session.email) return { kind: "refused", reason: "expired" };
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: used.answer,
      expectedChallenge: used.challenge,
      expectedOrigin: toOrigin(party.baseUrl),
      expectedRPID: toRelyingPartyId(party.baseUrl),
      requireUserVerification: false,
    });
  } catch {
    return { kind: "refused", reason: "invalid" };
  }
  if (!verified.verified) return { kind: "refused", reason: "invalid" };
  if ((await listPasskeys(services.store, session.email)).length >= PASSKEYS_PER_MEMBER) {
    return { kind: "refused", reason: "limit" };
  }
  const { credential, credentialDeviceType } = verified.registrationInfo;
  const now = services.clock.now();
  const record: PasskeyRecord = {
    id: credential.id,
    email: session.email,
    publicKey: toBase64Url(credential.publicKey),
    counter: credential.counter,
    ...(credential.transports?.length ? { transports: credential.transports } : {}),
    deviceType: credentialDeviceType,
    createdAt: now.toString(),
  };
  const key = [...PASSKEY_PREFIX, record.id];
  const operation = services.store.atomic().check({ key, versionstamp: null }).set(key, record);
  addAuditEntry(operation, now, { actor: session.email, action: "passkey-added" });
  if (!(await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
    return { kind: "refused", reason: "invalid" };
  }
  return { kind: "added", record };
}

/**
 * The options of a sign-in by passkey (for `startAuthentication()`): no credential named, so the
 * authenticator offers the site's passkeys and the page learns nothing about who is on the team.
 *
 * @param services The team's ports.
 * @param party The site's origin.
 * @throws Whatever the store throws.
 */
export async function createSignInOptions(
  services: TeamServices,
  party: Pick<RelyingParty, "baseUrl">,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({
    rpID: toRelyingPartyId(party.baseUrl),
    userVerification: "preferred",
    timeout: PASSKEY_CHALLENGE_MILLISECONDS,
  });
  await storeChallenge(services, options.challenge, { purpose: "sign-in" });
  return options;
}

/**
 * Signs in by passkey: uses the answer's challenge, finds the passkey by its credential id,
 * verifies the signature (and that the authenticator's counter moved on), then in one commit
 * updates the passkey's counter, creates a new session of the member's current generation and
 * records `sign-in-passkey` in the audit trail.
 *
 * @param services The team's ports.
 * @param party The site's origin.
 * @param text The answer of `startAuthentication()`, as JSON text.
 * @returns The new session and its id (for the cookie), why it is refused, or `malformed`.
 * @throws Whatever the store throws.
 */
export async function signInWithPasskey(
  services: TeamServices,
  party: Pick<RelyingParty, "baseUrl">,
  text: string,
): Promise<PasskeySignIn> {
  const used = await useChallenge<Parameters<typeof verifyAuthenticationResponse>[0]["response"]>(
    services,
    text,
    "sign-in",
  );
  if (used === "malformed") return { kind: "malformed" };
  if (typeof used === "string") return { kind: "refused", reason: used };
  const entry = await services.store.get<PasskeyRecord>([...PASSKEY_PREFIX, used.answer.id]);
  const passkey = entry.value;
  if (!passkey) return { kind: "refused", reason: "unknown" };
  if (!services.team.members.has(passkey.email)) return { kind: "refused", reason: "revoked" };
  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: used.answer,
      expectedChallenge: used.challenge,
      expectedOrigin: toOrigin(party.baseUrl),
      expectedRPID: toRelyingPartyId(party.baseUrl),
      credential: {
        id: passkey.id,
        // Written by registerPasskey from the authenticator's key: always base64url.
        publicKey: decodeBase64Url(passkey.publicKey) ?? new Uint8Array(),
        counter: passkey.counter,
        ...(passkey.transports ? { transports: passkey.transports } : {}),
      },
      requireUserVerification: false,
    });
  } catch {
    return { kind: "refused", reason: "invalid" };
  }
  if (!verified.verified) return { kind: "refused", reason: "invalid" };
  const now = services.clock.now();
  const member = await services.store.get<MemberRecord>([
    ...TEAM_MEMBER_PREFIX,
    await sha256Hex(passkey.email),
  ]);
  const updated: PasskeyRecord = {
    ...passkey,
    counter: verified.authenticationInfo.newCounter,
    lastUsedAt: now.toString(),
  };
  const operation = services.store.atomic().check(entry, member).set(entry.key, updated);
  const { sessionId, session } = await createSession(services, operation, {
    email: passkey.email,
    generation: member.value?.generation ?? 0,
  });
  addAuditEntry(operation, now, { actor: passkey.email, action: "sign-in-passkey" });
  if (!(await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok) {
    return { kind: "refused", reason: "invalid" };
  }
  services.logger.info("Team member signed in by passkey");
  return { kind: "signed-in", sessionId, session };
}

/**
 * Removes one of the member's passkeys, with its audit entry.
 *
 * @param services The team's ports.
 * @param session The member's session: only their own passkeys can be removed.
 * @param id The credential id (one that is not a credential id's shape removes nothing).
 * @returns Whether a passkey of the member was removed.
 * @throws Whatever the store throws.
 */
export async function removePasskey(
  services: TeamServices,
  session: TeamSession,
  id: string,
): Promise<boolean> {
  if (!isCredentialId(id)) return false;
  const entry = await services.store.get<PasskeyRecord>([...PASSKEY_PREFIX, id]);
  if (entry.value?.email !== session.email) return false;
  const operation = services.store.atomic().check(entry).delete(entry.key);
  addAuditEntry(operation, services.clock.now(), {
    actor: session.email,
    action: "passkey-removed",
  });
  return (await retry(() => operation.commit(), STORE_CONTENTION_RETRY)).ok;
}
