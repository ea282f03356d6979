/**
 * Budgets and end users on embedding requests: a spent end-user budget refuses an embedding with
 * the OpenAI SDK's 429 `budget_exceeded` and records nothing; a spent budget with a downgrade
 * model refuses too (vectors of another model are not comparable with the caller's) and names no
 * downgrade; an end user with budget left is served, attributed to that end user.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryBudgetLedger } from '../../../infra/state-store/memory/memory-budget-ledger.ts';
import { startEmbeddingUpstream, type EmbeddingUpstream } from '../../support/embedding-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const ADMIN_TOKEN = 'embedding-budgets-admin-token-0123456789';
const UPSTREAM_KEY = 'embedding-budgets-upstream-key';
let fake: EmbeddingUpstream;
let gateway: TestGateway;
let openai: OpenAI;

async function createBudget(body: Record<string, unknown>): Promise<void> {
  const created = await fetch(`${gateway.origin}/admin/api/budgets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ limitTokens: 0, period: 'day', scope: 'end_user', ...body }),
  });
  expect(created.status, await created.text()).toBe(201);
}

beforeAll(async () => {
  fake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
  gateway = await startTestGateway(
    {
      channels: [
        {
          id: 'openai',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${fake.origin}/v1`,
          apiKey: UPSTREAM_KEY,
          modelMap: { 'e-large': 'embed-large', 'e-small': 'embed-small' },
        },
      ],
    },
    { budgetLedger: createMemoryBudgetLedger() },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
  );
  await createBudget({ name: 'spent', scopeId: 'spent-customer' });
  await createBudget({ name: 'downgrading', scopeId: 'downgraded-customer', downgradeModel: 'e-small' });
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

describe('budgets on embeddings', () => {
  it.each(['spent-customer', 'downgraded-customer'])(
    '%s: 429 budget_exceeded, nothing sent upstream or recorded',
    async (endUser) => {
      const calls = fake.calls.length;
      const recorded = gateway.outcomes.length;
      const refused = await openai.embeddings
        .create({ model: 'e-large', input: 'x', user: endUser })
        .then(() => expect.unreachable('expected a refusal'))
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 429, code: 'budget_exceeded' });
      expect((refused as { headers: Headers }).headers.get('x-tollgate-downgraded-from')).toBeNull();
      expect(fake.calls.length).toBe(calls);
      expect(gateway.outcomes.length).toBe(recorded);
    },
  );

  it('serves an end user with budget left, attributed to that end user', async () => {
    const before = gateway.outcomes.length;
    const answer = await openai.embeddings.create({ model: 'e-large', input: 'x', user: 'rich-customer' });
    expect(answer.data).toHaveLength(1);
    await waitFor(() => gateway.outcomes.length > before);
    expect(gateway.outcomes.at(-1)).toMatchObject({
      operation: 'embedding',
      attribution: { endUserId: 'rich-customer' },
    });
  });
});
