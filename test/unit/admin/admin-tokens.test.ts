/**
 * Personal admin tokens on the admin API: created by an admin (token shown once, only its digest
 * published), accepted as Bearer tokens with the token's name as actor whatever the
 * x-tollgate-actor header says, listed without secrets, revoked (then 401); reserved and duplicate
 * names refused; without a bootstrap token the API opens only while a personal token is active.
 */
import { describe, expect, it } from 'vitest';
import { digestApiKey } from '../../../gateway/control-plane/key-material.ts';
import { AUTH, buildAdminTestApp, HMAC_SECRET } from './admin-app.ts';

describe('personal admin tokens', () => {
  it('are created once, act as their holder, are listed without secrets and revoked for good', async () => {
    const { app, controlPlane } = await buildAdminTestApp();
    const created = await app.inject({
      method: 'POST',
      url: '/admin/api/admin-tokens',
      headers: AUTH,
      payload: { name: ' Alice ' },
    });
    expect(created.statusCode).toBe(201);
    const { adminToken, token } = created.json<{ adminToken: { tokenId: string }; token: string }>();
    expect(adminToken).toEqual({
      tokenId: expect.stringMatching(/^adm_[0-9a-f]{16}$/),
      name: 'alice',
      status: 'active',
      createdAt: expect.any(String),
      createdBy: 'bootstrap-token',
      revokedAt: null,
      revokedBy: null,
    });
    expect(controlPlane.published.at(-1)).toEqual({
      type: 'AdminTokenCreated',
      event: {
        eventId: expect.any(String),
        occurredAt: expect.any(Number),
        actor: 'bootstrap-token',
        tokenId: adminToken.tokenId,
        name: 'alice',
        digest: digestApiKey(HMAC_SECRET, token),
      },
    });
    expect(JSON.stringify(controlPlane.published)).not.toContain(token);

    const alice = { authorization: `Bearer ${token}`, 'x-tollgate-actor': 'cli' };
    expect((await app.inject({ method: 'GET', url: '/admin/api/whoami', headers: alice })).json()).toEqual({
      actor: 'alice',
      role: 'admin',
      auth: 'admin-token',
      tokenId: adminToken.tokenId,
    });
    expect(
      (
        await app.inject({
          method: 'PUT',
          url: '/admin/api/prices',
          headers: alice,
          payload: { model: 'm', inputPerMTok: 1, outputPerMTok: 2 },
        })
      ).statusCode,
    ).toBe(201);
    expect(controlPlane.published.at(-1)!.event.actor).toBe('alice');

    const listed = await app.inject({ method: 'GET', url: '/admin/api/admin-tokens', headers: AUTH });
    expect(listed.json()).toEqual({ adminTokens: [adminToken] });
    expect(listed.body).not.toContain(digestApiKey(HMAC_SECRET, token));

    const revoked = await app.inject({
      method: 'POST',
      url: `/admin/api/admin-tokens/${adminToken.tokenId}/revoke`,
      headers: alice,
      payload: { reason: 'leaving' },
    });
    expect(revoked.json()).toMatchObject({ adminToken: { status: 'revoked', revokedBy: 'alice' } });
    expect(await app.inject({ method: 'GET', url: '/admin/api/whoami', headers: alice })).toMatchObject({
      statusCode: 401,
    });
    expect(
      (await app.inject({ method: 'POST', url: `/admin/api/admin-tokens/${adminToken.tokenId}/revoke`, headers: AUTH }))
        .statusCode,
    ).toBe(409);
    // The name is free again once its token is revoked.
    expect(
      (await app.inject({ method: 'POST', url: '/admin/api/admin-tokens', headers: AUTH, payload: { name: 'alice' } }))
        .statusCode,
    ).toBe(201);
  });

  it.each([
    [{ name: 'bootstrap-token' }, 400, "name: 'bootstrap-token' is reserved"],
    [{ name: 'CLI' }, 400, "name: 'cli' is reserved"],
    [{ name: 'x' }, 400, 'name: use 3–64 characters: a-z 0-9 . _ @ -'],
    [{ name: 'bob', role: 'admin' }, 400, "unknown field 'role'"],
  ])('refuses %j', async (payload, status, message) => {
    const { app } = await buildAdminTestApp();
    expect(await app.inject({ method: 'POST', url: '/admin/api/admin-tokens', headers: AUTH, payload })).toMatchObject({
      statusCode: status,
      body: expect.stringContaining(message),
    });
  });

  it('refuses a second active token with the same name (409) and an unknown id (404)', async () => {
    const { app } = await buildAdminTestApp();
    expect(
      (await app.inject({ method: 'POST', url: '/admin/api/admin-tokens', headers: AUTH, payload: { name: 'bob' } }))
        .statusCode,
    ).toBe(201);
    expect(
      (await app.inject({ method: 'POST', url: '/admin/api/admin-tokens', headers: AUTH, payload: { name: 'bob' } }))
        .statusCode,
    ).toBe(409);
    expect(
      (await app.inject({ method: 'POST', url: '/admin/api/admin-tokens/adm_nope/revoke', headers: AUTH })).statusCode,
    ).toBe(404);
  });

  it('without TOLLGATE_ADMIN_TOKEN: 403 until a personal token is active, then that token works', async () => {
    const { app, controlPlane } = await buildAdminTestApp({ adminToken: undefined });
    expect((await app.inject({ method: 'GET', url: '/admin/api/whoami', headers: AUTH })).statusCode).toBe(403);
    const token = 'tga-' + 'A'.repeat(40);
    await controlPlane.append([
      {
        type: 'AdminTokenCreated',
        event: {
          eventId: 'e1',
          occurredAt: 1,
          actor: 'carol',
          tokenId: 'adm_0000000000000001',
          name: 'dave',
          digest: digestApiKey(HMAC_SECRET, token),
        },
      },
    ]);
    expect((await app.inject({ method: 'GET', url: '/admin/api/whoami', headers: AUTH })).statusCode).toBe(401);
    expect(
      (
        await app.inject({ method: 'GET', url: '/admin/api/whoami', headers: { authorization: `Bearer ${token}` } })
      ).json(),
    ).toMatchObject({ actor: 'dave' });
  });
});
