/**
 * The personal admin tokens of the control plane, as the fold (control-plane-fold.ts) keeps them:
 * AdminTokenCreated adds a token (a repeated one with the same tokenId is ignored: a token never
 * changes name or digest), AdminTokenRevoked marks it revoked for good (unknown token: ignored, the
 * caller warns). Looked up by the HMAC digest of the presented token, like API keys.
 */
import type { AdminTokenCreated, AdminTokenRevoked } from './control-plane-events.ts';
import type { AdminTokenRecord } from './control-plane-records.ts';

/** Admin tokens by id and by digest (see the module doc). */
export class AdminTokenRegistry {
  private readonly byId = new Map<string, AdminTokenRecord>();
  private readonly idByDigest = new Map<string, string>();
  private snapshot: ReadonlyArray<AdminTokenRecord> | undefined;

  /** Adds a created token. @returns false when its tokenId already exists (then nothing changes). */
  created(event: AdminTokenCreated): boolean {
    if (this.byId.has(event.tokenId)) return false;
    this.byId.set(event.tokenId, {
      tokenId: event.tokenId,
      name: event.name,
      digest: event.digest,
      createdAt: event.occurredAt,
      createdBy: event.actor,
      revokedAt: null,
      revokedBy: null,
    });
    this.idByDigest.set(event.digest, event.tokenId);
    this.snapshot = undefined;
    return true;
  }

  /** Revokes a token (an already revoked one keeps its first revocation). @returns false for an unknown token. */
  revoked(event: AdminTokenRevoked): boolean {
    const existing = this.byId.get(event.tokenId);
    if (!existing) return false;
    if (existing.revokedAt === null)
      this.byId.set(event.tokenId, { ...existing, revokedAt: event.occurredAt, revokedBy: event.actor });
    this.snapshot = undefined;
    return true;
  }

  /** The token whose digest is `digest`, revoked ones included (callers check `revokedAt`). */
  byDigest(digest: string): AdminTokenRecord | undefined {
    const tokenId = this.idByDigest.get(digest);
    return tokenId === undefined ? undefined : this.byId.get(tokenId);
  }

  /** Every token, in creation order. */
  list(): ReadonlyArray<AdminTokenRecord> {
    return (this.snapshot ??= [...this.byId.values()]);
  }
}
