/**
 * Attribution through the real routes, with each official SDK: the end user and tags a client
 * sends reach the request's outcome (so its events), and a bad tag or a too-long end-user id is
 * refused with a 400 in the client's own error shape, naming it, before anything is recorded.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfigFile } from '../../../gateway/config/load-config.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../support/start-gateway.ts';

const CHANNELS = [{ id: 'mock-chat', provider: 'mock', protocol: 'openai-chat', models: ['m'] }];
const BAD_TAG = 'feature=search,bad tag=1';
const LONG_END_USER = 'u'.repeat(257);

let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  mock = await startMockUpstream();
  gateway = await startTestGateway({ channels: CHANNELS }, { mockBaseUrl: mock.baseUrl });
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: TEST_KEY, baseURL: gateway.origin, maxRetries: 0 });
});

afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

function gemini(headers: Record<string, string>): GoogleGenAI {
  return new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin, headers } });
}

/** What `run` rejected with (fails the test when it resolves). */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => expect.unreachable('expected a refusal'),
    (error: unknown) => error,
  );
}

describe('attribution through the client routes', () => {
  it('OpenAI Chat: safety_identifier is the end user before user, header tags are kept', async () => {
    await openai.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'hi' }], user: 'u-1', safety_identifier: 'sid-1' },
      { headers: { 'x-tollgate-tags': 'feature=search, env=prod' } },
    );
    expect(gateway.outcomes.at(-1)?.attribution).toEqual({
      teamId: null,
      endUserId: 'sid-1',
      tags: ['feature=search', 'env=prod'],
    });
    await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], user: 'u-1' });
    expect(gateway.outcomes.at(-1)?.attribution).toEqual({ teamId: null, endUserId: 'u-1', tags: [] });
  });

  it('OpenAI Responses: the header beats safety_identifier', async () => {
    await openai.responses.create(
      { model: 'm', input: 'hi', safety_identifier: 'sid-2' },
      { headers: { 'x-tollgate-end-user': 'header-user' } },
    );
    expect(gateway.outcomes.at(-1)?.attribution?.endUserId).toBe('header-user');
    await openai.responses.create({ model: 'm', input: 'hi', safety_identifier: 'sid-2' });
    expect(gateway.outcomes.at(-1)?.attribution?.endUserId).toBe('sid-2');
  });

  it('Anthropic Messages: metadata.user_id is the end user', async () => {
    await anthropic.messages.create(
      { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'meta-1' } },
      { headers: { 'x-tollgate-tags': 'feature=chat' } },
    );
    expect(gateway.outcomes.at(-1)?.attribution).toEqual({
      teamId: null,
      endUserId: 'meta-1',
      tags: ['feature=chat'],
    });
  });

  it('Gemini: the header names the end user and the tags', async () => {
    await gemini({ 'x-tollgate-end-user': 'g-1', 'x-tollgate-tags': 'feature=vision' }).models.generateContent({
      model: 'm',
      contents: 'hi',
    });
    expect(gateway.outcomes.at(-1)?.attribution).toEqual({ teamId: null, endUserId: 'g-1', tags: ['feature=vision'] });
  });

  it('OpenAI Chat: a bad tag is a 400 naming it (param x-tollgate-tags), not recorded', async () => {
    const before = gateway.outcomes.length;
    const error = await rejection(() =>
      openai.chat.completions.create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-tollgate-tags': BAD_TAG } },
      ),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const refusal = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(refusal.status).toBe(400);
    expect(refusal.param).toBe('x-tollgate-tags');
    expect(refusal.message).toContain("x-tollgate-tags: the tag 'bad tag=1' has an invalid name");
    expect(gateway.outcomes.length).toBe(before);
  });

  it('OpenAI Chat: a too-long user is a 400 naming the field', async () => {
    const error = await rejection(() =>
      openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], user: LONG_END_USER }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('user');
    expect((error as Error).message).toContain('user: the end-user id is 257 characters long; at most 256');
  });

  it('Anthropic Messages: a too-long end-user header and a bad tag are invalid_request_error 400s naming them', async () => {
    const before = gateway.outcomes.length;
    const tooLong = await rejection(() =>
      anthropic.messages.create(
        { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-tollgate-end-user': LONG_END_USER } },
      ),
    );
    expect(tooLong).toBeInstanceOf(Anthropic.BadRequestError);
    const refusal = tooLong as InstanceType<typeof Anthropic.BadRequestError>;
    expect(refusal.status).toBe(400);
    expect(refusal.error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'x-tollgate-end-user: the end-user id is 257 characters long; at most 256 are allowed',
      },
    });
    const badTag = await rejection(() =>
      anthropic.messages.create(
        { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-tollgate-tags': 'feature' } },
      ),
    );
    expect(badTag).toBeInstanceOf(Anthropic.BadRequestError);
    expect((badTag as Error).message).toContain("x-tollgate-tags: the tag 'feature' is not of the form name=value");
    expect(gateway.outcomes.length).toBe(before);
  });

  it('Gemini: a bad tag is an INVALID_ARGUMENT 400 naming it', async () => {
    const before = gateway.outcomes.length;
    const error = await rejection(() =>
      gemini({ 'x-tollgate-tags': `feature=${'v'.repeat(129)}` }).models.generateContent({
        model: 'm',
        contents: 'hi',
      }),
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    const body = JSON.parse((error as ApiError).message) as { error: { status: string; message: string } };
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toMatch(/^x-tollgate-tags: the tag 'feature=v+…' has an invalid value/);
    expect(gateway.outcomes.length).toBe(before);
  });
});

describe('attribution.endUserFrom', () => {
  it('sets the precedence of the end-user sources', async () => {
    const configured = await startTestGateway(
      { channels: CHANNELS, attribution: { endUserFrom: ['metadata.user_id', 'header'] } },
      { mockBaseUrl: mock.baseUrl },
    );
    try {
      const client = new Anthropic({ apiKey: TEST_KEY, baseURL: configured.origin, maxRetries: 0 });
      const body = { model: 'm', max_tokens: 16, messages: [{ role: 'user' as const, content: 'hi' }] };
      const headers = { headers: { 'x-tollgate-end-user': 'header-user' } };
      await client.messages.create({ ...body, metadata: { user_id: 'meta-2' } }, headers);
      await client.messages.create(body, headers);
      expect(configured.outcomes.map((o) => o.attribution?.endUserId)).toEqual(['meta-2', 'header-user']);
    } finally {
      await configured.close();
    }
  });

  it('refuses an unknown source or one named twice, naming the entry', () => {
    const parse =
      (endUserFrom: unknown): unknown =>
      () =>
        parseConfigFile({ channels: CHANNELS, attribution: { endUserFrom } }, {});
    expect(parse(['header', 'cookie'])).toThrow(ConfigError);
    expect(parse(['header', 'cookie'])).toThrow(/attribution\.endUserFrom\[1\]/);
    expect(parse(['user', 'user'])).toThrow(/attribution\.endUserFrom: must not name a source twice/);
    expect(parse([])).not.toThrow();
  });
});
