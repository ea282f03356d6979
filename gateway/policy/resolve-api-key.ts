/**
 * Resolves a presented API key against the control plane: only its HMAC-SHA-256 digest is
 * looked up (gateway/control-plane/key-material.ts). A key that is unknown, disabled, revoked
 * (from its `revokedAt` on: a rotation's grace period ends there), expired, or whose owner or
 * team is disabled is refused — on every node as soon as the node applied the event.
 */
import type { ControlPlaneView, KeyRecord, TeamRecord, UserRecord } from '../control-plane/control-plane-view.ts';
import { digestApiKey } from '../control-plane/key-material.ts';

/** A usable key, its owner and its team (each when it has one and the view knows it). */
export interface ResolvedKey {
  readonly key: KeyRecord;
  readonly user: UserRecord | undefined;
  readonly team?: TeamRecord | undefined;
}

/** Why a key was refused; `message` is safe to show the client (it never echoes the key). */
export type KeyRefusal = {
  readonly reason: 'missing' | 'unknown' | 'disabled' | 'revoked' | 'expired' | 'owner-disabled' | 'team-disabled';
  readonly message: string;
};

/** Most presented keys whose digests are remembered, per HMAC secret. */
const KNOWN_DIGESTS_MAX = 10_000;

/**
 * Digests of presented keys that matched a known key, per HMAC secret: an HMAC-SHA-256 costs a few
 * µs on every request, a Map lookup well under one. Only keys that matched enter (oldest out at
 * KNOWN_DIGESTS_MAX), so a client trying random keys cannot push the real ones out. A remembered
 * key that is later revoked, disabled or deleted is still looked up by its digest, so it is refused
 * exactly as before.
 */
const knownDigests = new WeakMap<Buffer, Map<string, string>>();

/** The digest of `presented` under `hmacSecret`, from the remembered ones when it matched before. */
function digestOf(view: ControlPlaneView, hmacSecret: Buffer, presented: string): string {
  let remembered = knownDigests.get(hmacSecret);
  const known = remembered?.get(presented);
  if (known !== undefined) return known;
  const digest = digestApiKey(hmacSecret, presented);
  if (view.keyByDigest(digest)) {
    if (!remembered) knownDigests.set(hmacSecret, (remembered = new Map<string, string>()));
    if (remembered.size >= KNOWN_DIGESTS_MAX) remembered.delete(remembered.keys().next().value as string);
    remembered.set(presented, digest);
  }
  return digest;
}

/** Resolves `presented` (the raw header value) at time `now` (ms). */
export function resolveApiKey(
  view: ControlPlaneView,
  hmacSecret: Buffer,
  presented: string | undefined,
  now: number = Date.now(),
): ResolvedKey | KeyRefusal {
  if (!presented)
    return {
      reason: 'missing',
      message:
        'Missing API key. Send it in the header your SDK uses (Authorization: Bearer, x-api-key or x-goog-api-key).',
    };
  const key = presented.startsWith('sk-') ? view.keyByDigest(digestOf(view, hmacSecret, presented)) : undefined;
  if (!key)
    return {
      reason: 'unknown',
      message: 'Incorrect API key provided. Keys start with "sk-"; check the key you configured.',
    };
  if (key.revokedAt !== null && key.revokedAt <= now)
    return { reason: 'revoked', message: `The API key ${key.publicId} has been revoked.` };
  if (key.expiresAt !== null && key.expiresAt <= now)
    return {
      reason: 'expired',
      message: `The API key ${key.publicId} expired at ${new Date(key.expiresAt).toISOString()}.`,
    };
  if (!key.enabled) return { reason: 'disabled', message: `The API key ${key.publicId} is disabled.` };
  const user = key.userId === null ? undefined : view.user(key.userId);
  if (user?.disabled) return { reason: 'owner-disabled', message: `The owner of API key ${key.publicId} is disabled.` };
  if (key.teamId === null) return { key, user };
  const team = view.team(key.teamId);
  if (team?.disabled) return { reason: 'team-disabled', message: `The team of API key ${key.publicId} is disabled.` };
  return { key, user, team };
}
