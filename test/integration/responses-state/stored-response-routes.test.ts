/**
 * The stored-response routes with the official openai SDK (v6: `responses.retrieve`, `delete`,
 * `inputItems.list`) and raw HTTP: DELETE then GET is 404; another key sees nothing (404 on every
 * route, `previous_response_not_found` on create); `store: false` keeps nothing; input_items pages
 * through the whole context as the API does; malformed ids and queries are 400s; an unknown
 * previous response is the API's exact 400; and only creates are billed.
 */
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const OTHER_KEY = 'sk-test-other-key-0002';
const MODEL = 'stored-chat';

let upstream: FixtureUpstream;
let gateway: TestGateway;
let client: OpenAI;
let other: OpenAI;
/** Creates that reached an upstream (each must be billed once). */
let served = 0;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  gateway = await startTestGateway({
    keys: [
      { name: 'owner', key: TEST_KEY },
      { name: 'other', key: OTHER_KEY },
    ],
    channels: [
      {
        id: 'chat',
        provider: 'deepseek',
        protocol: 'openai-chat',
        baseUrl: upstream.baseUrl('openai-chat'),
        apiKey: 'k',
        modelMap: { [MODEL]: 'text' },
      },
    ],
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
  other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function createWith(
  sdk: OpenAI,
  body: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'model'>,
): Promise<OpenAI.Responses.Response> {
  const response = await sdk.responses.create({ model: MODEL, ...body });
  served++;
  return response;
}

async function raw(
  method: 'GET' | 'DELETE' | 'POST',
  path: string,
  options: { key?: string | null; body?: unknown; header?: 'bearer' | 'api-key' } = {},
): Promise<{ status: number; body: any }> {
  const key = options.key === undefined ? TEST_KEY : options.key;
  const auth =
    key === null ? {} : options.header === 'api-key' ? { 'api-key': key } : { authorization: `Bearer ${key}` };
  const response = await request(`${gateway.origin}${path}`, {
    method,
    headers: { ...auth, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text === '' ? undefined : JSON.parse(text) };
}

const notFound = (id: string) => ({
  error: { message: `Response with id '${id}' not found.`, type: 'invalid_request_error', param: null, code: null },
});
const previousNotFound = (id: string) => ({
  error: {
    message: `Previous response with id '${id}' not found.`,
    type: 'invalid_request_error',
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  },
});

describe('retrieve and delete', () => {
  it('retrieves with Bearer or api-key, deletes, then answers 404 everywhere', async () => {
    const created = await createWith(client, { input: 'Keep this one' });
    expect(await client.responses.retrieve(created.id)).toEqual(created);
    expect((await raw('GET', `/v1/responses/${created.id}`, { header: 'api-key' })).status).toBe(200);
    expect(await raw('DELETE', `/v1/responses/${created.id}`)).toEqual({
      status: 200,
      body: { id: created.id, object: 'response', deleted: true },
    });
    expect(await raw('GET', `/v1/responses/${created.id}`)).toEqual({ status: 404, body: notFound(created.id) });
    expect(await raw('GET', `/v1/responses/${created.id}/input_items`)).toEqual({
      status: 404,
      body: notFound(created.id),
    });
    expect(await raw('DELETE', `/v1/responses/${created.id}`)).toEqual({ status: 404, body: notFound(created.id) });
    await expect(client.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(
      await raw('POST', '/v1/responses', { body: { model: MODEL, previous_response_id: created.id, input: 'more' } }),
    ).toEqual({ status: 400, body: previousNotFound(created.id) });
  });

  it('deletes through the SDK', async () => {
    const created = await createWith(client, { input: 'Delete me through the SDK' });
    await client.responses.delete(created.id);
    await expect(client.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('hides a response from every other key (404), and does not let it continue the chain (400)', async () => {
    const created = await createWith(client, { input: 'Mine only' });
    await expect(other.responses.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect(await raw('GET', `/v1/responses/${created.id}/input_items`, { key: OTHER_KEY })).toEqual({
      status: 404,
      body: notFound(created.id),
    });
    expect(await raw('DELETE', `/v1/responses/${created.id}`, { key: OTHER_KEY })).toEqual({
      status: 404,
      body: notFound(created.id),
    });
    const refused = await other.responses
      .create({ model: MODEL, previous_response_id: created.id, input: 'steal' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ status: 400, code: 'previous_response_not_found', param: 'previous_response_id' });
    expect((await client.responses.retrieve(created.id)).id).toBe(created.id); // the other key's DELETE changed nothing
  });

  it('answers 401 without a key', async () => {
    const response = await raw('GET', '/v1/responses/resp_abc', { key: null });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
  });

  it('answers 400 (never 500) to malformed ids and to a streamed retrieval', async () => {
    for (const id of ['bad%20id', 'resp%3Aabc', 'x.y']) {
      const response = await raw('GET', `/v1/responses/${id}`);
      expect(response.status, id).toBe(400);
      expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: 'response_id' });
      expect((await raw('DELETE', `/v1/responses/${id}`)).status).toBe(400);
      expect((await raw('GET', `/v1/responses/${id}/input_items`)).status).toBe(400);
    }
    const tooLong = await raw('GET', `/v1/responses/resp_${'a'.repeat(300)}`);
    expect(tooLong.status).toBeGreaterThanOrEqual(400);
    expect(tooLong.status).toBeLessThan(500);
    const created = await createWith(client, { input: 'Not a background response' });
    expect((await raw('GET', `/v1/responses/${created.id}?stream=true`)).body.error.param).toBe('stream');
  });
});

describe('store: false and unknown previous responses', () => {
  it('keeps nothing with store: false, yet a stored turn can still be continued with store: false', async () => {
    const unstored = await createWith(client, { input: 'Forget me', store: false });
    expect((unstored as unknown as { store: boolean }).store).toBe(false);
    expect(await raw('GET', `/v1/responses/${unstored.id}`)).toEqual({ status: 404, body: notFound(unstored.id) });
    expect(
      await raw('POST', '/v1/responses', { body: { model: MODEL, previous_response_id: unstored.id, input: 'more' } }),
    ).toEqual({ status: 400, body: previousNotFound(unstored.id) });
    const stored = await createWith(client, { input: 'Remember me' });
    const continued = await createWith(client, {
      input: 'Continue without storing',
      previous_response_id: stored.id,
      store: false,
    });
    expect(continued.previous_response_id).toBe(stored.id);
    expect(upstream.requests.at(-1)!.body).toContain('Remember me');
    expect((await raw('GET', `/v1/responses/${continued.id}`)).status).toBe(404);
  });

  it('answers an unknown or malformed previous_response_id exactly as the API does', async () => {
    expect(
      await raw('POST', '/v1/responses', {
        body: { model: MODEL, previous_response_id: 'resp_doesnotexist', input: 'hi' },
      }),
    ).toEqual({ status: 400, body: previousNotFound('resp_doesnotexist') });
    expect(
      await raw('POST', '/v1/responses', {
        body: { model: MODEL, stream: true, previous_response_id: 'not an id!', input: 'hi' },
      }),
    ).toEqual({ status: 400, body: previousNotFound('not an id!') });
    const mistyped = await raw('POST', '/v1/responses', {
      body: { model: MODEL, previous_response_id: 42, input: 'hi' },
    });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.error.param).toBe('previous_response_id');
    const sdkError = await client.responses
      .create({ model: MODEL, previous_response_id: 'resp_missing', input: 'hi' })
      .catch((error: unknown) => error);
    expect(sdkError).toMatchObject({ status: 400, code: 'previous_response_not_found' });
  });

  it('continues from the history alone when a create names a previous response and sends no input', async () => {
    const first = await createWith(client, { input: 'History without a new question' });
    const again = await raw('POST', '/v1/responses', { body: { model: MODEL, previous_response_id: first.id } });
    expect(again.status).toBe(200);
    served++;
    expect(again.body.previous_response_id).toBe(first.id);
    expect(upstream.requests.at(-1)!.body).toContain('History without a new question');
    expect((await raw('POST', '/v1/responses', { body: { model: MODEL } })).body.error.param).toBe('input'); // no history, no input: still refused
  });

  it('counts input tokens over the whole chain with previous_response_id', async () => {
    const first = await createWith(client, {
      input: 'A fairly long first question, with quite a few words in it, to count.',
    });
    const alone = await raw('POST', '/v1/responses/input_tokens', { body: { model: MODEL, input: 'short' } });
    const chained = await raw('POST', '/v1/responses/input_tokens', {
      body: { model: MODEL, previous_response_id: first.id, input: 'short' },
    });
    expect(chained.body.input_tokens).toBeGreaterThan(alone.body.input_tokens + 10);
    expect(
      (
        await raw('POST', '/v1/responses/input_tokens', {
          body: { model: MODEL, previous_response_id: 'resp_gone', input: 'short' },
        })
      ).body,
    ).toEqual(previousNotFound('resp_gone'));
  });
});

describe('input_items', () => {
  it('lists the whole context, newest first by default, in pages the SDK follows', async () => {
    const first = await createWith(client, {
      input: [
        { role: 'user', content: 'item one' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'item two' }] },
      ],
    });
    const second = await createWith(client, { input: 'item four', previous_response_id: first.id });
    const third = await createWith(client, { input: 'item six', previous_response_id: second.id });
    const all = [];
    for await (const item of client.responses.inputItems.list(third.id, { limit: 2 })) all.push(item);
    expect(all).toHaveLength(6);
    const texts = all.map((item) => JSON.stringify(item));
    expect(texts[0]).toContain('item six');
    expect(texts[5]).toContain('item one');
    expect(all[1]).toEqual(second.output[0]);
    expect(all[0]).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_text', text: 'item six' }],
    });
    expect(new Set(all.map((item) => item.id)).size).toBe(6);

    const ascending = [];
    for await (const item of client.responses.inputItems.list(third.id, { order: 'asc', limit: 4 }))
      ascending.push(item);
    expect(ascending).toEqual([...all].reverse());
    const page = await raw('GET', `/v1/responses/${third.id}/input_items?order=asc&limit=2&after=${ascending[1]!.id}`);
    expect(page).toEqual({
      status: 200,
      body: {
        object: 'list',
        data: ascending.slice(2, 4),
        first_id: ascending[2]!.id,
        last_id: ascending[3]!.id,
        has_more: true,
      },
    });
    const last = await raw('GET', `/v1/responses/${third.id}/input_items?order=asc&after=${ascending[3]!.id}`);
    expect(last.body).toMatchObject({ data: ascending.slice(4), has_more: false });
    const firstTurn = await raw('GET', `/v1/responses/${first.id}/input_items?include[]=message.input_image.image_url`);
    expect(firstTurn.body.data.map((item: { content: Array<{ text: string }> }) => item.content[0]!.text)).toEqual([
      'item two',
      'item one',
    ]);
  });

  it('refuses malformed queries with 400 naming the parameter', async () => {
    const created = await createWith(client, { input: 'query checks' });
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['order=sideways', 'order'],
      ['after=', 'after'],
      ['after=msg_unknown', 'after'],
    ] as const) {
      const response = await raw('GET', `/v1/responses/${created.id}/input_items?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.param, query).toBe(param);
    }
  });
});

describe('billing', () => {
  it('bills each create once and nothing for retrieval, listing or deletion', async () => {
    await waitFor(() => gateway.outcomes.length >= served);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gateway.outcomes).toHaveLength(served);
    expect(gateway.outcomes.every((o) => o.clientFormat === 'openai-responses' && o.status === 'completed')).toBe(true);
  });
});
