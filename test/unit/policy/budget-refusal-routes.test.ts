/**
 * A budget refusal through the real routes, with each official SDK: an end user's spent daily
 * budget is the format's own 429 — OpenAI `code: budget_exceeded`, Anthropic `rate_limit_error`,
 * Gemini `RESOURCE_EXHAUSTED` with an `ErrorInfo` reason — with `x-tollgate-error-code`,
 * `retry-after` to the end of the day and `x-should-retry: false`, and nothing is recorded; other
 * end users are served.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { createMemoryBudgetLedger } from '../../../infra/state-store/memory/memory-budget-ledger.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = 'budget-refusal-admin-token-0123456789';
const CHANNELS = [{ id: 'mock-chat', provider: 'mock', protocol: 'openai-chat', models: ['m', 'm-small'] }];
const CAPPED = { 'x-tollgate-end-user': 'capped-customer' };

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    { channels: CHANNELS },
    { mockBaseUrl: mock.baseUrl, budgetLedger: createMemoryBudgetLedger() },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
  );
  const created = await fetch(`${gateway.origin}/admin/api/budgets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'capped customer',
      scope: 'end_user',
      scopeId: 'capped-customer',
      limitTokens: 0,
      period: 'day',
    }),
  });
  expect(created.status, await created.text()).toBe(201);
  const downgrading = await fetch(`${gateway.origin}/admin/api/budgets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'downgraded customer',
      scope: 'end_user',
      scopeId: 'downgraded-customer',
      limitTokens: 0,
      period: 'day',
      downgradeModel: 'm-small',
    }),
  });
  expect(downgrading.status, await downgrading.text()).toBe(201);
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

/** Seconds to the next UTC midnight, as `retry-after` should say (± 2 s for the request's time). */
function secondsToMidnight(): number {
  const now = Date.now();
  return Math.ceil((Math.floor(now / 86_400_000 + 1) * 86_400_000 - now) / 1000);
}

async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => expect.unreachable('expected a refusal'),
    (error: unknown) => error,
  );
}

describe('a spent budget through the client routes', () => {
  it('OpenAI: 429 code budget_exceeded, retry-after to midnight, not retried; another end user is served', async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const recorded = gateway.outcomes.length;
    const error = await rejection(() =>
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { headers: CAPPED }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const refusal = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(refusal.code).toBe('budget_exceeded');
    expect(refusal.message).toContain("Budget 'capped customer' of end user capped-customer is used up this day");
    expect(refusal.headers.get('x-tollgate-error-code')).toBe('budget_exceeded');
    expect(refusal.headers.get('x-should-retry')).toBe('false');
    expect(Math.abs(Number(refusal.headers.get('retry-after')) - secondsToMidnight())).toBeLessThanOrEqual(2);
    expect(gateway.outcomes.length).toBe(recorded);
    await openai.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
      { headers: { 'x-tollgate-end-user': 'someone-else' } },
    );
    expect(gateway.outcomes.length).toBe(recorded + 1);
  });

  it('Anthropic: 429 rate_limit_error with the code in x-tollgate-error-code, not retried', async () => {
    const anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
    const error = await rejection(() =>
      anthropic.messages.create({
        model: 'm',
        max_tokens: 16,
        messages: [{ role: 'user', content: 'hi' }],
        metadata: { user_id: 'capped-customer' },
      }),
    );
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const refusal = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(refusal.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(refusal.headers.get('x-tollgate-error-code')).toBe('budget_exceeded');
    expect(refusal.headers.get('x-should-retry')).toBe('false');
  });

  it('Gemini: 429 RESOURCE_EXHAUSTED with an ErrorInfo reason BUDGET_EXCEEDED and a RetryInfo', async () => {
    const gemini = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin, headers: CAPPED } });
    const error = await rejection(() => gemini.models.generateContent({ model: 'm', contents: 'hi' }));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    const body = JSON.parse((error as ApiError).message) as {
      error: { status: string; details: Array<Record<string, unknown>> };
    };
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
    expect(body.error.details[0]).toEqual({
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'BUDGET_EXCEEDED',
      domain: 'tollgate',
      metadata: { code: 'budget_exceeded' },
    });
    expect(body.error.details[1]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.RetryInfo' });
  });

  it('a budget with a downgrade model serves its spent end user on that model, saying so in a header', async () => {
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    const { data: stream, response } = await openai.chat.completions
      .create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true },
        { headers: { 'x-tollgate-end-user': 'downgraded-customer' } },
      )
      .withResponse();
    let chunks = 0;
    for await (const _ of stream) chunks += 1;
    expect(chunks).toBeGreaterThan(0);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-tollgate-downgraded-from')).toBe('m');
    // The outcome is recorded as the stream ends, possibly just after its last chunk reached the client.
    for (let i = 0; i < 50 && gateway.outcomes.at(-1)?.model !== 'm-small'; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gateway.outcomes.at(-1)).toMatchObject({ model: 'm-small', upstreamModel: 'm-small' });
  });

  it("a key's requests per day: the format's 429 daily_limit_exceeded after the day's one request, until midnight, not retried (last: it caps the test key)", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const listed = (await (await fetch(`${gateway.origin}/admin/api/keys`, { headers: admin })).json()) as {
      keys: Array<{ keyId: string; name: string }>;
    };
    const keyId = listed.keys.find((key) => key.name === 'test')!.keyId;
    const patched = await fetch(`${gateway.origin}/admin/api/keys/${keyId}`, {
      method: 'PATCH',
      headers: admin,
      body: JSON.stringify({ rpd: 1 }),
    });
    expect(patched.status, await patched.text()).toBe(200);
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'the one of today' }] });
    const error = await rejection(() =>
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'one too many' }] }),
    );
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const refusal = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(refusal.code).toBe('daily_limit_exceeded');
    expect(refusal.message).toContain('requests per day (RPD) limit of API key');
    expect(refusal.headers.get('x-should-retry')).toBe('false');
    expect(Math.abs(Number(refusal.headers.get('retry-after')) - secondsToMidnight())).toBeLessThanOrEqual(2);
  });
});
