/**
 * Console credentials through the user commands: login/password rules and pairing, taken logins,
 * the events emitted (UserCredentialsSet with a scrypt hash, never the password), updates of
 * login or password alone, and the self-service setUserPassword.
 */
import { describe, expect, it } from 'vitest';
import {
  createUser,
  setUserPassword,
  updateUser,
  type CommandContext,
} from '../../../gateway/control-plane/commands.ts';
import { verifyPassword } from '../../../gateway/control-plane/password-hash.ts';
import { RecordingControlPlane } from '../admin/recording-control-plane.ts';
import { commandRefusal, runCommand } from '../admin/run-command.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ctx: CommandContext = {
  now: NOW,
  actor: 'admin',
  secrets: { masterKey: Buffer.alloc(32, 7), hmacSecret: Buffer.from('h'.repeat(40)) },
};

/** A projection holding one user `ada` (password `first-password`) and one without credentials. */
async function setup(): Promise<{ cp: RecordingControlPlane; ada: string; bob: string }> {
  const cp = new RecordingControlPlane(ctx.secrets.masterKey);
  const { userId: ada } = await runCommand(cp, () =>
    createUser(cp, { name: 'Ada', login: 'ada', password: 'first-password' }, ctx),
  );
  const { userId: bob } = await runCommand(cp, () => createUser(cp, { name: 'Bob' }, ctx));
  cp.published.length = 0;
  return { cp, ada, bob };
}

const LOGIN_RULE = 'login: use 3–64 characters: a-z 0-9 . _ @ -';

describe('createUser with login and password', () => {
  it.each([
    [{ name: 'a', login: 'ab', password: 'long-enough' }, 'login', LOGIN_RULE],
    [{ name: 'a', login: 'x'.repeat(65), password: 'long-enough' }, 'login', LOGIN_RULE],
    [{ name: 'a', login: 'has space', password: 'long-enough' }, 'login', LOGIN_RULE],
    [{ name: 'a', login: 'émile', password: 'long-enough' }, 'login', LOGIN_RULE],
    [{ name: 'a', login: 42, password: 'long-enough' }, 'login', LOGIN_RULE],
    [{ name: 'a', login: 'ada2', password: 'short' }, 'password', 'password: must have at least 8 characters'],
    [{ name: 'a', login: 'ada2', password: 'p'.repeat(201) }, 'password', 'password: must have at most 200 characters'],
    [{ name: 'a', login: 'ada2' }, 'password', 'password: is required with a login'],
    [{ name: 'a', password: 'long-enough' }, 'login', 'login: is required with a password'],
  ])('%j → 400 on %s', async (body, field, message) => {
    const { cp } = await setup();
    expect(commandRefusal(() => createUser(cp, body, ctx))).toEqual({ status: 400, field, message });
  });

  it('refuses a login another user has, whatever its case', async () => {
    const { cp } = await setup();
    expect(commandRefusal(() => createUser(cp, { name: 'x', login: ' ADA ', password: 'long-enough' }, ctx))).toEqual({
      status: 409,
      field: 'login',
      message: "login 'ada' is already taken",
    });
  });

  it('emits UserCreated then UserCredentialsSet with a scrypt hash of the password', async () => {
    const { cp } = await setup();
    const { userId } = await runCommand(cp, () =>
      createUser(cp, { name: 'Cy', login: '  Cy.Admin@Example.org ', password: ' spaced password ' }, ctx),
    );
    expect(cp.published.map((e) => e.type)).toEqual(['UserCreated', 'UserCredentialsSet']);
    const credentials = cp.published[1]!;
    expect(credentials).toEqual({
      type: 'UserCredentialsSet',
      event: {
        eventId: expect.any(String),
        occurredAt: NOW,
        actor: 'admin',
        userId,
        login: 'cy.admin@example.org',
        passwordHash: expect.stringMatching(/^scrypt\$16384\$8\$1\$/),
      },
    });
    expect(JSON.stringify(cp.published)).not.toContain('spaced password');
    const user = cp.userByLogin('cy.admin@example.org')!;
    expect(user.userId).toBe(userId);
    expect(await verifyPassword(' spaced password ', user.passwordHash!)).toBe(true);
    expect(await verifyPassword('spaced password', user.passwordHash!)).toBe(false);
  });
});

describe('updateUser with login and password', () => {
  it('a password alone keeps the login and emits only UserCredentialsSet', async () => {
    const { cp, ada } = await setup();
    await runCommand(cp, () => updateUser(cp, ada, { password: 'second-password' }, ctx));
    expect(cp.published.map((e) => e.type)).toEqual(['UserCredentialsSet']);
    const user = cp.user(ada)!;
    expect(user.login).toBe('ada');
    expect(await verifyPassword('second-password', user.passwordHash!)).toBe(true);
    expect(await verifyPassword('first-password', user.passwordHash!)).toBe(false);
  });

  it('a login alone keeps the password hash', async () => {
    const { cp, ada } = await setup();
    const before = cp.user(ada)!.passwordHash;
    await runCommand(cp, () => updateUser(cp, ada, { login: 'Ada.L' }, ctx));
    expect(cp.published).toEqual([
      {
        type: 'UserCredentialsSet',
        event: expect.objectContaining({ userId: ada, login: 'ada.l', passwordHash: before }),
      },
    ]);
    expect(cp.userByLogin('ada')).toBeUndefined();
    expect(cp.userByLogin('ada.l')?.userId).toBe(ada);
  });

  it('settings and credentials together: UserUpdated then UserCredentialsSet', async () => {
    const { cp, bob } = await setup();
    await runCommand(cp, () => updateUser(cp, bob, { role: 'admin', login: 'bob', password: 'bobs-password' }, ctx));
    expect(cp.published.map((e) => e.type)).toEqual(['UserUpdated', 'UserCredentialsSet']);
    expect(cp.user(bob)).toMatchObject({ role: 'admin', login: 'bob' });
  });

  it('keeping its own login is not a conflict; another user’s is', async () => {
    const { cp, ada, bob } = await setup();
    expect(() => updateUser(cp, ada, { login: 'ADA' }, ctx)).not.toThrow();
    // The console's edit form sends the unchanged login with the other fields: no credentials event.
    expect(updateUser(cp, ada, { login: 'ada', rpm: 5 }, ctx).events.map((e) => e.type)).toEqual(['UserUpdated']);
    expect(updateUser(cp, ada, { login: 'ada' }, ctx).events).toEqual([]);
    expect(commandRefusal(() => updateUser(cp, bob, { login: 'ada', password: 'long-enough' }, ctx))).toEqual({
      status: 409,
      field: 'login',
      message: "login 'ada' is already taken",
    });
  });

  it('refuses half credentials on a user without any, and bad values', async () => {
    const { cp, bob } = await setup();
    expect(commandRefusal(() => updateUser(cp, bob, { login: 'bob' }, ctx))).toEqual({
      status: 400,
      field: 'password',
      message: 'password: is required to set a login',
    });
    expect(commandRefusal(() => updateUser(cp, bob, { password: 'long-enough' }, ctx))).toEqual({
      status: 400,
      field: 'login',
      message: 'login: is required to set a password',
    });
    expect(commandRefusal(() => updateUser(cp, bob, { login: 'b!' }, ctx))).toEqual({
      status: 400,
      field: 'login',
      message: LOGIN_RULE,
    });
    expect(commandRefusal(() => updateUser(cp, bob, { password: 'short' }, ctx))).toEqual({
      status: 400,
      field: 'password',
      message: 'password: must have at least 8 characters',
    });
    expect(commandRefusal(() => updateUser(cp, bob, {}, ctx))).toEqual({
      status: 400,
      field: undefined,
      message: 'request body: no fields to update',
    });
  });
});

describe('setUserPassword', () => {
  it('emits one UserCredentialsSet keeping the login, actor from the context', async () => {
    const { cp, ada } = await setup();
    await runCommand(cp, () => setUserPassword(cp, ada, 'brand-new-password', { ...ctx, actor: ada }));
    expect(cp.published).toEqual([
      { type: 'UserCredentialsSet', event: expect.objectContaining({ actor: ada, userId: ada, login: 'ada' }) },
    ]);
    expect(await verifyPassword('brand-new-password', cp.user(ada)!.passwordHash!)).toBe(true);
  });

  it('refuses a bad password, an unknown user and a user without a login', async () => {
    const { cp, ada, bob } = await setup();
    expect(commandRefusal(() => setUserPassword(cp, ada, 'short', ctx))).toEqual({
      status: 400,
      field: 'newPassword',
      message: 'newPassword: must have at least 8 characters',
    });
    expect(commandRefusal(() => setUserPassword(cp, ada, undefined, ctx))).toEqual({
      status: 400,
      field: 'newPassword',
      message: 'newPassword: is required',
    });
    expect(commandRefusal(() => setUserPassword(cp, 'usr_none', 'long-enough', ctx))).toEqual({
      status: 404,
      field: 'id',
      message: "user 'usr_none' not found",
    });
    expect(commandRefusal(() => setUserPassword(cp, bob, 'long-enough', ctx))).toEqual({
      status: 409,
      field: 'id',
      message: `user '${bob}' has no login: an admin must set one first`,
    });
  });
});
