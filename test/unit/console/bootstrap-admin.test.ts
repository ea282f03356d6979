/**
 * The console admin bootstrap: from TOLLGATE_ADMIN_USER/PASSWORD, generated on first start,
 * nothing when an admin can already sign in, never resetting an existing login, and the start-up
 * errors for half or invalid settings. Events go through the real codec and projection.
 */
import { describe, expect, it } from 'vitest';
import { bootstrapAdminEvents } from '../../../gateway/console/bootstrap-admin.ts';
import {
  createUser,
  updateUser,
  type CommandContext,
  type CommandResult,
} from '../../../gateway/control-plane/commands.ts';
import { verifyPassword } from '../../../gateway/control-plane/password-hash.ts';
import { RecordingControlPlane } from '../admin/recording-control-plane.ts';

const NOW = Date.parse('2026-04-01T00:00:00Z');
const ctx: CommandContext = {
  now: NOW,
  actor: 'admin',
  secrets: { masterKey: Buffer.alloc(32, 7), hmacSecret: Buffer.from('h'.repeat(40)) },
};

async function run<T>(cp: RecordingControlPlane, command: () => CommandResult<T>): Promise<T> {
  const { events, result } = command();
  await cp.append([...events]);
  return result;
}

function fresh(): RecordingControlPlane {
  return new RecordingControlPlane(ctx.secrets.masterKey);
}

describe('bootstrapAdminEvents', () => {
  it('creates the admin of TOLLGATE_ADMIN_USER/PASSWORD (login lower-cased), actor bootstrap', async () => {
    const cp = fresh();
    const result = bootstrapAdminEvents(
      cp,
      { TOLLGATE_ADMIN_USER: ' Root@Example.org ', TOLLGATE_ADMIN_PASSWORD: 'from-the-env' },
      { now: NOW },
    );
    expect(result.generatedPassword).toBeNull();
    expect(result.login).toBe('root@example.org');
    expect(result.events.map((e) => e.type)).toEqual(['UserCreated', 'UserCredentialsSet']);
    expect(result.events.every((e) => e.event.actor === 'bootstrap' && e.event.occurredAt === NOW)).toBe(true);
    expect(JSON.stringify(result.events)).not.toContain('from-the-env');
    await cp.append(result.events);
    const admin = cp.userByLogin('root@example.org')!;
    expect(admin).toMatchObject({
      name: 'root@example.org',
      role: 'admin',
      disabled: false,
      rpm: null,
      tpm: null,
      quotaNanoUsd: null,
    });
    expect(await verifyPassword('from-the-env', admin.passwordHash!)).toBe(true);
  });

  it('gives nodes bootstrapping at the same moment one admin user: the last password set wins', async () => {
    const topic = fresh();
    // Two nodes that both saw an empty topic decide before either event arrives.
    const first = bootstrapAdminEvents(topic, {}, { now: NOW });
    const second = bootstrapAdminEvents(topic, {}, { now: NOW + 1 });
    await topic.append(first.events);
    await topic.append(second.events);
    expect(topic.users()).toHaveLength(1);
    const admin = topic.userByLogin('admin')!;
    expect(admin.role).toBe('admin');
    expect(await verifyPassword(second.generatedPassword!, admin.passwordHash!)).toBe(true);
    expect(await verifyPassword(first.generatedPassword!, admin.passwordHash!)).toBe(false);
  });

  it('never resets an existing login from the environment', async () => {
    const cp = fresh();
    await run(cp, () =>
      createUser(cp, { name: 'Root', role: 'user', login: 'root', password: 'chosen-in-console' }, ctx),
    );
    expect(
      bootstrapAdminEvents(
        cp,
        { TOLLGATE_ADMIN_USER: 'ROOT', TOLLGATE_ADMIN_PASSWORD: 'other-password' },
        { now: NOW },
      ),
    ).toEqual({ events: [], generatedPassword: null, login: null });
  });

  it('generates an admin password on first start when neither variable is set', async () => {
    const cp = fresh();
    const result = bootstrapAdminEvents(cp, {}, { now: NOW });
    expect(result.login).toBe('admin');
    expect(result.generatedPassword).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(JSON.stringify(result.events)).not.toContain(result.generatedPassword);
    await cp.append(result.events);
    const admin = cp.userByLogin('admin')!;
    expect(admin.role).toBe('admin');
    expect(await verifyPassword(result.generatedPassword!, admin.passwordHash!)).toBe(true);
    // the next start finds an admin who can sign in: nothing to do, nothing printed
    expect(bootstrapAdminEvents(cp, { TOLLGATE_ADMIN_USER: '', TOLLGATE_ADMIN_PASSWORD: '' }, { now: NOW })).toEqual({
      events: [],
      generatedPassword: null,
      login: null,
    });
    // a new password each time one is generated
    expect(bootstrapAdminEvents(fresh(), {}, { now: NOW }).generatedPassword).not.toBe(result.generatedPassword);
  });

  it('generates again when no enabled admin has a login, picking a free admin-<n> login', async () => {
    const cp = fresh();
    const { userId: first } = await run(cp, () =>
      createUser(cp, { name: 'A', role: 'admin', login: 'admin', password: 'long-enough' }, ctx),
    );
    await run(cp, () => createUser(cp, { name: 'B', role: 'user', login: 'admin-2', password: 'long-enough' }, ctx));
    await run(cp, () => createUser(cp, { name: 'C', role: 'admin' }, ctx)); // an admin without a login does not count
    expect(bootstrapAdminEvents(cp, {}, { now: NOW }).events).toEqual([]);
    await run(cp, () => updateUser(cp, first, { disabled: true }, ctx));
    const result = bootstrapAdminEvents(cp, {}, { now: NOW });
    expect(result.login).toBe('admin-3');
    await cp.append(result.events);
    expect(cp.userByLogin('admin-3')).toMatchObject({ role: 'admin', disabled: false });
  });

  it.each([
    [{ TOLLGATE_ADMIN_USER: 'root' }, /TOLLGATE_ADMIN_PASSWORD is not/],
    [{ TOLLGATE_ADMIN_USER: 'root', TOLLGATE_ADMIN_PASSWORD: '' }, /TOLLGATE_ADMIN_PASSWORD is not/],
    [{ TOLLGATE_ADMIN_PASSWORD: 'long-enough' }, /TOLLGATE_ADMIN_USER is not/],
    [
      { TOLLGATE_ADMIN_USER: 'root', TOLLGATE_ADMIN_PASSWORD: 'short' },
      /TOLLGATE_ADMIN_PASSWORD must have 8–200 characters/,
    ],
    [
      { TOLLGATE_ADMIN_USER: 'no spaces allowed', TOLLGATE_ADMIN_PASSWORD: 'long-enough' },
      /TOLLGATE_ADMIN_USER must be a login/,
    ],
  ])('throws for %j', (env, message) => {
    expect(() => bootstrapAdminEvents(fresh(), env, { now: NOW })).toThrow(message);
  });

  it('checks the environment password even when the login exists (a typo is noticed at once)', async () => {
    const cp = fresh();
    await run(cp, () => createUser(cp, { name: 'Root', role: 'admin', login: 'root', password: 'long-enough' }, ctx));
    expect(() =>
      bootstrapAdminEvents(cp, { TOLLGATE_ADMIN_USER: 'root', TOLLGATE_ADMIN_PASSWORD: 'short' }, { now: NOW }),
    ).toThrow(/TOLLGATE_ADMIN_PASSWORD/);
  });

  it('uses the actor given in the context', () => {
    const result = bootstrapAdminEvents(fresh(), {}, { ...ctx, actor: 'bootstrap-test' });
    expect(result.events.map((e) => e.event.actor)).toEqual(['bootstrap-test', 'bootstrap-test']);
  });
});
