/**
 * Resolving presented API keys against the control plane, with the digests of known keys
 * remembered: a remembered key is still refused the moment it is revoked or disabled, is unknown
 * to a view that never had it and under another HMAC secret, and unknown keys are refused.
 */
import { describe, expect, it } from 'vitest';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { resolveApiKey } from '../../../gateway/policy/resolve-api-key.ts';
import {
  keyCreated,
  keyRevoked,
  keyUpdated,
  teamCreated,
  teamUpdated,
  TEST_HMAC_SECRET,
  TEST_MASTER_KEY,
} from '../control-plane/control-event-fixtures.ts';

const PRESENTED = 'sk-abcdefghijkl-0123456789ABCDEFGHIJKLMNOPQRSTUV';
const NOW = 1_767_225_600_000;

function withKey(): ControlPlaneProjection {
  const view = new ControlPlaneProjection(TEST_MASTER_KEY);
  view.apply(keyCreated({ userId: null, digest: digestApiKey(TEST_HMAC_SECRET, PRESENTED), occurredAt: NOW - 10 }));
  return view;
}

describe('resolveApiKey', () => {
  it('finds a key by its digest, again and again, and refuses it once revoked', () => {
    const view = withKey();
    for (let i = 0; i < 3; i += 1)
      expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({ key: { keyId: 'key_abc' } });
    view.apply(keyRevoked({ effectiveAt: NOW - 1, occurredAt: NOW - 1 }));
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({ reason: 'revoked' });
  });

  it('refuses a remembered key once disabled, and finds nothing for it in a view that never had it', () => {
    const view = withKey();
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({ key: { keyId: 'key_abc' } });
    view.apply(keyUpdated({ enabled: false, expiresAt: null, occurredAt: NOW - 1 }));
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({ reason: 'disabled' });
    expect(resolveApiKey(new ControlPlaneProjection(TEST_MASTER_KEY), TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({
      reason: 'unknown',
    });
  });

  it('digests under the secret it is given: the same key under another secret is unknown', () => {
    const view = withKey();
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({ key: { keyId: 'key_abc' } });
    expect(resolveApiKey(view, Buffer.from('another-secret'), PRESENTED, NOW)).toMatchObject({ reason: 'unknown' });
    expect(resolveApiKey(view, TEST_HMAC_SECRET, `${PRESENTED.slice(0, -1)}W`, NOW)).toMatchObject({
      reason: 'unknown',
    });
  });

  it('gives a team key its team, and refuses it while the team is disabled', () => {
    const view = new ControlPlaneProjection(TEST_MASTER_KEY);
    view.apply(teamCreated({ teamId: 'team_1', occurredAt: NOW - 20 }));
    view.apply(
      keyCreated({
        userId: null,
        teamId: 'team_1',
        digest: digestApiKey(TEST_HMAC_SECRET, PRESENTED),
        occurredAt: NOW - 10,
      }),
    );
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({
      key: { keyId: 'key_abc', teamId: 'team_1' },
      team: { teamId: 'team_1' },
    });
    view.apply(teamUpdated({ teamId: 'team_1', disabled: true, occurredAt: NOW - 1 }));
    expect(resolveApiKey(view, TEST_HMAC_SECRET, PRESENTED, NOW)).toMatchObject({
      reason: 'team-disabled',
      message: 'The team of API key abcdefghijkl is disabled.',
    });
  });
});
