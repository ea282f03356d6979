/**
 * The web console end to end, in Debian's headless Chromium driven by playwright-core, against
 * `infra/processes/tollgate-server.ts` run as `npm start` runs it — embedded (file log, memory, chdb) and on the real
 * engines (Kafka, Redis, ClickHouse). An admin signs in, creates a key, uses it with the official
 * OpenAI SDK, sees the requests in the usage page and the spend change, revokes the key and sees
 * the SDK refused; creates a channel and tests it; a second user sees only their own keys; a
 * team with that user as team admin and a daily budget, whose key's requests (tagged, naming an
 * end user) fill the budget's bar and show up by team, tag and end user on the Spend page.
 * Every page is screenshotted to test-artifacts/console/<mode>-<page>.png.
 */
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  launchChromium,
  SCREENSHOT_DIR,
  startGatewayProcess,
  type ConsoleTestMode,
  type GatewayProcess,
} from './console-e2e-harness.ts';
import { runnableCases } from '../support/engines.ts';

const ADMIN = { login: 'root', password: 'root-password-e2e' };
const USER = { name: 'Eve Example', login: 'eve', password: 'eve-password-e2e' };
/** Generous: the pipeline folds events into the analytics store asynchronously. */
const PIPELINE_WAIT_MS = 45_000;

describe.each(runnableCases<ConsoleTestMode>(['embedded', 'engines'], (mode) => mode === 'engines'))(
  'the web console (%s)',
  (mode) => {
    let gateway: GatewayProcess;
    let browser: Browser;
    let adminContext: BrowserContext;
    let page: Page;
    const pageErrors: string[] = [];
    /** Shared by the tests below, in order. */
    const state = { apiKey: '', publicId: '', requestIds: [] as string[] };

    const shot = async (target: Page, name: string) =>
      target.screenshot({ path: join(SCREENSHOT_DIR, `${mode}-${name}.png`), fullPage: true });
    const open = async (target: Page, hash: string) => {
      await target.goto(`${gateway.origin}/console/#/${hash}`);
      await target.getByTestId('current-user').waitFor();
    };
    const sdk = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

    beforeAll(async () => {
      gateway = await startGatewayProcess(mode, ADMIN);
      browser = await launchChromium();
      adminContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      page = await adminContext.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }, 120_000);

    afterEach(async (context) => {
      // What the admin's page showed when a step failed, next to the other screenshots.
      if (context.task.result?.state !== 'fail' || !page) return;
      const slug = context.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60);
      await page
        .screenshot({ path: join(SCREENSHOT_DIR, `${mode}-failed-${slug}.png`), fullPage: true })
        .catch(() => undefined);
    });

    afterAll(async () => {
      await browser?.close();
      await gateway?.stop();
    });

    it('signs the admin in (a wrong password is refused with the API message)', async () => {
      await page.goto(`${gateway.origin}/console/`);
      await shot(page, 'sign-in');
      await page.getByTestId('signin-login').fill(ADMIN.login);
      await page.getByTestId('signin-password').fill('wrong-password');
      await page.getByTestId('signin-submit').click();
      await expect.poll(() => page.getByTestId('signin-error').textContent()).toContain('invalid login or password');
      await page.getByTestId('signin-password').fill(ADMIN.password);
      await page.getByTestId('signin-submit').click();
      await page.getByTestId('current-user').waitFor();
      expect(await page.getByTestId('current-role').textContent()).toContain('admin');
      const cookie = (await adminContext.cookies()).find((c) => c.name === 'tollgate_session');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' });
    }, 120_000);

    it('creates a key shown once, uses it through the OpenAI SDK, and finds the requests in usage and spend', async () => {
      await open(page, 'spend');
      const costBefore = await page.getByTestId('spend-total-cost').textContent();
      const requestsBefore = Number((await page.getByTestId('spend-total-requests').textContent())!.replace(/\D/g, ''));

      await open(page, 'keys');
      await page.getByTestId('key-create').click();
      await page.getByTestId('key-name').fill('e2e sdk key');
      // A past expiry passes the browser's checks; the admin API's message shows next to the field.
      await page.getByTestId('key-expires').fill('2020-01-01T00:00');
      await page.getByTestId('key-submit').click();
      await expect
        .poll(() => page.getByTestId('field-error-expiresAt').textContent())
        .toContain('expiresAt: must be in the future');
      await page.getByTestId('key-expires').fill('');
      await page.getByTestId('key-rpm').fill('600');
      await page.getByTestId('key-quota').fill('1');
      await page.getByTestId('key-submit').click();
      const keyInput = page.getByTestId('new-key-value');
      await keyInput.waitFor();
      state.apiKey = await keyInput.inputValue();
      expect(state.apiKey).toMatch(/^sk-[a-z2-7]{12}-[0-9A-Za-z]{32}$/);
      state.publicId = state.apiKey.split('-')[1]!;
      await page.getByTestId('copy-key').click();
      await page.getByTestId('copy-key-status').waitFor();
      await shot(page, 'key-created');
      await page.getByTestId('new-key-done').click();
      await page.getByTestId(`key-row-${state.publicId}`).waitFor();
      expect(await page.content()).not.toContain(state.apiKey);

      // The usage page is open before the requests exist: only its Apply button can bring them in.
      await open(page, 'usage');
      await page.getByTestId('usage-table').waitFor();
      const client = sdk(state.apiKey);
      const { data, response } = await client.chat.completions
        .create({ model: 'mock-1', messages: [{ role: 'user', content: 'Hello from the console test' }] })
        .withResponse();
      expect(data.choices[0]?.message.content).toBe('Mock reply to: Hello from the console test');
      state.requestIds.push(response.headers.get('x-request-id')!);
      const stream = await client.chat.completions
        .create({
          model: 'mock-1',
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Streamed hello' }],
        })
        .withResponse();
      let streamed = '';
      for await (const chunk of stream.data) streamed += chunk.choices[0]?.delta.content ?? '';
      expect(streamed).toBe('Mock reply to: Streamed hello');
      state.requestIds.push(stream.response.headers.get('x-request-id')!);

      for (const requestId of state.requestIds) {
        await expect
          .poll(
            async () => {
              await page.getByTestId('usage-apply').click();
              return page.getByTestId(`usage-row-${requestId}`).count();
            },
            { timeout: PIPELINE_WAIT_MS, interval: 1000 },
          )
          .toBe(1);
      }
      // The Cache panel below the log lists the new key once its billing lines are in.
      await expect
        .poll(
          async () => {
            await page.getByTestId('usage-apply').click();
            return page.getByTestId('cache-keys-row-e2e sdk key').count();
          },
          { timeout: PIPELINE_WAIT_MS, interval: 1000 },
        )
        .toBe(1);
      expect(await page.getByTestId('cache-keys-hit-rate-e2e sdk key').textContent()).toMatch(/^\d+\.\d%$/);
      await shot(page, 'usage');
      await page.getByTestId(`usage-row-${state.requestIds[0]}`).click();
      await page.getByTestId('usage-detail').waitFor();
      expect(await page.getByTestId('usage-field-requestId').getAttribute('title')).toBe(state.requestIds[0]);
      expect(Number(await page.getByTestId('usage-field-costUsd').getAttribute('title'))).toBeGreaterThan(0);
      await shot(page, 'usage-detail');

      await open(page, 'spend');
      await expect
        .poll(
          async () => {
            await page.getByTestId('spend-range-30').click();
            return Number((await page.getByTestId('spend-total-requests').textContent())!.replace(/\D/g, ''));
          },
          { timeout: PIPELINE_WAIT_MS, interval: 1000 },
        )
        .toBe(requestsBefore + 2);
      expect(await page.getByTestId('spend-total-cost').textContent()).not.toBe(costBefore);
      await page.getByTestId('spend-chart-daily').locator('canvas').waitFor();
      await shot(page, 'spend');

      await open(page, 'keys');
      await expect
        .poll(
          async () => {
            await page.reload();
            return page.getByTestId(`key-quota-${state.publicId}`).textContent();
          },
          { timeout: PIPELINE_WAIT_MS, interval: 1000 },
        )
        .not.toMatch(/^\$0(\.00)? \//);
      await shot(page, 'keys');
    }, 120_000);

    it('revokes the key and the SDK is refused', async () => {
      await open(page, 'keys');
      await page.getByTestId(`key-revoke-${state.publicId}`).click();
      await page.getByTestId('revoke-reason').fill('e2e test done');
      await page.getByTestId('confirm-revoke').click();
      await expect
        .poll(() => page.getByTestId(`key-status-${state.publicId}`).getAttribute('data-status'))
        .toBe('revoked');
      await expect(
        sdk(state.apiKey).chat.completions.create({
          model: 'mock-1',
          messages: [{ role: 'user', content: 'after revoke' }],
        }),
      ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    }, 120_000);

    it('creates a channel from the mock preset and tests it', async () => {
      await open(page, 'channels');
      await page.getByTestId('channel-create').click();
      await page.getByTestId('channel-id').fill('e2e-mock');
      await page.getByTestId('channel-provider').selectOption('mock');
      await page.getByTestId('channel-models').fill('mock-e2e');
      await page.getByTestId('channel-rpm').fill('120');
      await page.getByTestId('channel-submit').click();
      await page.getByTestId('channel-row-e2e-mock').waitFor();
      await page.getByTestId('channel-test-e2e-mock').click();
      const result = page.getByTestId('channel-test-result-e2e-mock');
      await expect.poll(() => result.getAttribute('data-ok'), { timeout: 15_000 }).toBe('true');
      expect(await result.textContent()).toContain('Mock reply to: Say OK.');
      await shot(page, 'channels');
      await page.getByTestId('channel-search').fill('e2e');
      await expect.poll(() => page.getByTestId('channel-row-demo-mock').count()).toBe(0);
      expect(await page.getByTestId('page-range').textContent()).toBe('1–1 of 1');
      await open(page, 'prices');
      await page.getByTestId('prices-table').waitFor();
      await shot(page, 'prices');
    }, 120_000);

    it('creates a user who sees only their own keys and no admin pages', async () => {
      await open(page, 'users');
      await page.getByTestId('user-create').click();
      await page.getByTestId('user-name').fill(USER.name);
      await page.getByTestId('user-login').fill(USER.login);
      await page.getByTestId('user-password').fill(USER.password);
      await page.getByTestId('user-submit').click();
      await expect.poll(() => page.getByTestId('users-table').textContent()).toContain(USER.name);
      await shot(page, 'users');

      const userContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const userPage = await userContext.newPage();
        userPage.on('pageerror', (error) => pageErrors.push(error.message));
        await userPage.goto(`${gateway.origin}/console/`);
        await userPage.getByTestId('signin-login').fill(USER.login);
        await userPage.getByTestId('signin-password').fill(USER.password);
        await userPage.getByTestId('signin-submit').click();
        await userPage.getByTestId('current-user').waitFor();
        expect(await userPage.getByTestId('current-role').textContent()).toContain('user');
        await userPage.getByTestId('key-create').click();
        await userPage.getByTestId('key-name').fill('eve own key');
        await userPage.getByTestId('key-submit').click();
        const eveKey = await userPage.getByTestId('new-key-value').inputValue();
        await userPage.getByTestId('new-key-done').click();
        const evePublicId = eveKey.split('-')[1]!;
        await userPage.getByTestId(`key-row-${evePublicId}`).waitFor();
        expect(await userPage.getByTestId(`key-row-${state.publicId}`).count()).toBe(0);
        expect(await userPage.getByTestId('keys-table').textContent()).not.toContain('e2e sdk key');
        expect(await userPage.getByTestId('nav-users').count()).toBe(0);
        await shot(userPage, 'user-keys');
        const listed = (await (
          await userContext.request.get(`${gateway.origin}/console/api/keys?limit=200`)
        ).json()) as { keys: Array<{ publicId: string }> };
        expect(listed.keys.map((k) => k.publicId)).toEqual([evePublicId]);
        expect((await userContext.request.get(`${gateway.origin}/console/api/users`)).status()).toBe(403);
        await userPage.goto(`${gateway.origin}/console/#/users`);
        await userPage.getByTestId('page-forbidden').waitFor();
        const usage = (await (
          await userContext.request.get(`${gateway.origin}/console/api/usage?limit=200`)
        ).json()) as { rows: Array<{ requestId: string }> };
        expect(usage.rows.map((r) => r.requestId)).not.toContain(state.requestIds[0]);
      } finally {
        await userContext.close();
      }
    }, 120_000);

    it('runs a team: members, a daily budget with its use and reset, a team key, spend by team, tag and end user', async () => {
      await open(page, 'teams');
      await page.getByTestId('team-create').click();
      await page.getByTestId('team-name').fill('e2e-team');
      await page.getByTestId('team-tags').fill('team=e2e');
      await page.getByTestId('team-submit').click();
      await page.getByTestId('team-title').waitFor();
      const teamId = decodeURIComponent(new URL(page.url()).hash.replace('#/teams/', ''));
      expect(teamId).toMatch(/^team_/);

      await page.getByTestId('member-add').click();
      await page.getByTestId('member-user').selectOption({ label: `${USER.name} (${USER.login})` });
      await page.getByTestId('member-role').selectOption('team_admin');
      await page.getByTestId('member-submit').click();
      await expect.poll(() => page.getByTestId('members-table').textContent()).toContain('team admin');

      await page.getByTestId('budget-create').click();
      await page.getByTestId('budget-name').fill('e2e daily');
      await page.getByTestId('budget-limit-usd').fill('5');
      await page.getByTestId('budget-period').selectOption('day');
      await page.getByTestId('budget-thresholds').fill('50, 150');
      await page.getByTestId('budget-submit').click();
      await expect.poll(() => page.getByTestId('field-error-thresholds').textContent()).toContain('thresholds');
      await page.getByTestId('budget-thresholds').fill('50, 80');
      await page.getByTestId('budget-submit').click();
      const bar = page.locator('[data-testid^="budget-use-bgt_"][data-percent]');
      await bar.waitFor();
      expect(await bar.getAttribute('data-percent')).toBe('0');
      const budgetTestId = (await bar.getAttribute('data-testid'))!;
      expect(await page.getByTestId(`${budgetTestId}-text`).textContent()).toBe('0.0% · $0.00 / $5.00');
      expect(await page.getByTestId(`${budgetTestId}-reset`).textContent()).toMatch(/^resets /);

      const userContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const userPage = await userContext.newPage();
        userPage.on('pageerror', (error) => pageErrors.push(error.message));
        await userPage.goto(`${gateway.origin}/console/`);
        await userPage.getByTestId('signin-login').fill(USER.login);
        await userPage.getByTestId('signin-password').fill(USER.password);
        await userPage.getByTestId('signin-submit').click();
        await userPage.getByTestId('current-user').waitFor();
        await open(userPage, `teams/${encodeURIComponent(teamId)}`);
        await userPage.getByTestId('team-key-create').click();
        await userPage.getByTestId('key-name').fill('e2e team key');
        await userPage.getByTestId('key-submit').click();
        const teamKey = await userPage.getByTestId('new-key-value').inputValue();
        await userPage.getByTestId('new-key-done').click();
        await userPage.getByTestId(`key-row-${teamKey.split('-')[1]}`).waitFor();
        expect(await userPage.getByTestId('budget-create').count()).toBe(0);

        const reply = await sdk(teamKey).chat.completions.create(
          { model: 'mock-1', messages: [{ role: 'user', content: 'Team hello' }] },
          { headers: { 'x-tollgate-tags': 'feature=e2e', 'x-tollgate-end-user': 'customer-7' } },
        );
        expect(reply.choices[0]?.message.content).toBe('Mock reply to: Team hello');
        // The request's cost (spent, or still held until billing adds it) is in today's window.
        await expect
          .poll(
            async () => {
              await userPage.reload();
              return userPage.getByTestId(`${budgetTestId}-text`).textContent();
            },
            { timeout: PIPELINE_WAIT_MS, interval: 1000 },
          )
          .not.toBe('0.0% · $0.00 / $5.00');
        expect(await userPage.getByTestId(`${budgetTestId}-text`).textContent()).toMatch(
          /^(<0\.1|\d+\.\d)% · \$[\d.]+( \+ \$[\d.]+ held)? \/ \$5\.00$/,
        );
        await shot(userPage, 'team');
      } finally {
        await userContext.close();
      }

      await open(page, 'spend');
      await expect
        .poll(
          async () => {
            await page.getByTestId('spend-range-30').click();
            await page.getByTestId('spend-attribution').waitFor();
            return (
              (await page.getByTestId('spend-team-e2e-team').count()) +
              (await page.getByTestId('spend-tag-feature=e2e').count()) +
              (await page.getByTestId('spend-end-user-customer-7').count())
            );
          },
          { timeout: PIPELINE_WAIT_MS, interval: 1000 },
        )
        .toBe(3);
      expect(await page.getByTestId('spend-tag-team=e2e').count()).toBe(1);
      await page.getByTestId('spend-chart-teams').locator('canvas').waitFor();
      await shot(page, 'spend-attribution');
      await open(page, 'budgets');
      await page.getByTestId('budgets-table').waitFor();
      await shot(page, 'budgets');
    }, 180_000);

    it('shows the audit history of every change made above, with who made it', async () => {
      await open(page, 'audit');
      await page.getByTestId('audit-table').waitFor();
      await expect.poll(() => page.getByTestId('audit-table').textContent()).toContain('KeyRevoked');
      const text = (await page.getByTestId('audit-table').textContent())!;
      for (const type of ['KeyCreated', 'ChannelUpserted', 'UserCreated', 'UserCredentialsSet'])
        expect(text).toContain(type);
      expect(text).toContain(ADMIN.login);
      expect(text).not.toContain(state.apiKey);
      await shot(page, 'audit');
      expect(pageErrors).toEqual([]);
    }, 120_000);
  },
);
