/**
 * WebSocket mode of the Responses API (https://developers.openai.com/api/docs/guides/websocket-mode)
 * through the gateway with the official SDK's WebSocket client, on channels of every upstream
 * protocol served by a fake upstream: plain responses, several per connection, connection-local
 * continuation with store:false (the `previous_response_id` the client named echoed in every
 * Response object; a failed continuation evicting the response it continued), a tool round trip,
 * previous responses resolved by the HTTP route
 * (stored ones, and chains mixing both), documented error events, refused keys, malformed
 * messages, one response at a time, client disconnects, and one outcome (usage, billing) per
 * response, RPM limits included.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_FORMATS, type WireFormat } from '../../../gateway/canonical/formats.ts';
import { startMockUpstream } from '../../../gateway/mock/mock-upstream-server.ts';
import { fixturePath, startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';
import { outputText, RawConnection, refusedUpgrade, SdkConnection, type ServerEvent } from './websocket-client.ts';

const PROVIDER_FOR: Record<WireFormat, string> = {
  'openai-chat': 'deepseek',
  'openai-responses': 'openai',
  'anthropic-messages': 'anthropic',
  gemini: 'gemini',
};
const ADMIN_TOKEN = 'admin-token-for-websocket-tests';
const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Current weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

let upstream: FixtureUpstream;
let mock: Awaited<ReturnType<typeof startMockUpstream>>;
let gateway: TestGateway;
const open: SdkConnection[] = [];

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  mock = await startMockUpstream();
  gateway = await startTestGateway(
    {
      channels: [
        ...WIRE_FORMATS.map((protocol) => ({
          id: `fake-${protocol}`,
          provider: PROVIDER_FOR[protocol],
          protocol,
          baseUrl: upstream.baseUrl(protocol),
          apiKey: 'upstream-secret',
          modelMap: {
            [`${protocol}--text`]: 'text',
            [`${protocol}--tool-call`]: 'tool-call',
            [`${protocol}--fail-400`]: 'fail-400',
            [`${protocol}--truncated`]: 'truncated',
          },
        })),
        { id: 'mock-chat', provider: 'mock', protocol: 'openai-chat', models: ['mock-chat'] },
      ],
    },
    { mockBaseUrl: mock.baseUrl },
    { TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN },
  );
});

afterAll(async () => {
  for (const connection of open) connection.close();
  await gateway?.close();
  await upstream?.close();
  await mock?.close();
});

function connect(apiKey = TEST_KEY): SdkConnection {
  const connection = new SdkConnection(gateway.origin, apiKey);
  open.push(connection);
  return connection;
}

function expectedText(protocol: WireFormat): string {
  return (JSON.parse(readFileSync(fixturePath(protocol, 'text', 'expect.json')!, 'utf8')) as { text: string }).text;
}

/** The single terminal event of a turn, checked to be `response.completed` after a `response.created`. */
function completed(turn: ServerEvent[]): ServerEvent {
  expect(turn[0]?.type).toBe('response.created');
  expect(turn.at(-1)?.type).toBe('response.completed');
  expect(turn.map((event) => event.sequence_number)).toEqual(turn.map((_, i) => i));
  return turn.at(-1)!.response as ServerEvent;
}

/** The body of the upstream request made since `before` requests had been recorded (exactly one). */
function upstreamBodySince(before: number): string {
  expect(upstream.requests.length).toBe(before + 1);
  return upstream.requests.at(-1)!.body;
}

/** The `previous_response_id` of every Response object in a turn's events (lifecycle snapshots), in order. */
function echoedPreviousIds(turn: ServerEvent[]): unknown[] {
  return turn
    .filter((event) => typeof event.response === 'object' && event.response !== null)
    .map((event) => (event.response as ServerEvent).previous_response_id);
}

/** Asserts the documented `previous_response_not_found` error event (and nothing else) naming `id`. */
function expectPreviousNotFound(turn: ServerEvent[], id: string): void {
  expect(turn).toEqual([
    expect.objectContaining({
      type: 'error',
      status: 400,
      error: expect.objectContaining({
        type: 'invalid_request_error',
        code: 'previous_response_not_found',
        param: 'previous_response_id',
        message: expect.stringContaining(id),
      }),
    }),
  ]);
}

/** Asserts that `texts` occur in `body` in this order (each searched after the previous match). */
function expectInOrder(body: string, texts: string[]): void {
  let from = 0;
  for (const text of texts) {
    const at = body.indexOf(text, from);
    expect(at, `'${text}' after offset ${from} of the upstream body`).toBeGreaterThanOrEqual(0);
    from = at + text.length;
  }
}

describe.each(WIRE_FORMATS)('upstream %s', (protocol) => {
  it('a plain response: the SSE events as JSON messages, one outcome', async () => {
    const connection = connect();
    const outcomesBefore = gateway.outcomes.length;
    const response = completed(await connection.turn({ model: `${protocol}--text`, input: 'Say hello', store: false }));
    expect(outputText(response)).toBe(expectedText(protocol));
    expect(response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    await waitFor(() => gateway.outcomes.length === outcomesBefore + 1);
    expect(gateway.outcomes.at(-1)).toMatchObject({
      status: 'completed',
      model: `${protocol}--text`,
      channelId: `fake-${protocol}`,
    });
    expect(connection.errors).toEqual([]);
  });

  it('two responses on one connection, one after the other', async () => {
    const connection = connect();
    const first = completed(await connection.turn({ model: `${protocol}--text`, input: 'First', store: false }));
    const second = completed(await connection.turn({ model: `${protocol}--text`, input: 'Second', store: false }));
    expect(outputText(first)).toBe(expectedText(protocol));
    expect(outputText(second)).toBe(expectedText(protocol));
  });

  it('store:false continuation: the next upstream request carries the first turn input and output, not its instructions', async () => {
    const connection = connect();
    const first = completed(
      await connection.turn({
        model: `${protocol}--text`,
        instructions: 'Answer like a pirate.',
        input: 'What is the first question?',
        store: false,
      }),
    );
    const before = upstream.requests.length;
    const second = completed(
      await connection.turn({
        model: `${protocol}--text`,
        previous_response_id: first.id,
        input: [{ role: 'user', content: 'And the second one?' }],
        store: false,
      }),
    );
    expect(outputText(second)).toBe(expectedText(protocol));
    const body = upstreamBodySince(before);
    expectInOrder(body, ['What is the first question?', expectedText(protocol), 'And the second one?']);
    expect(body).not.toContain('pirate');
    // A third turn continues the second: the whole conversation so far is carried.
    const beforeThird = upstream.requests.length;
    completed(
      await connection.turn({
        model: `${protocol}--text`,
        previous_response_id: second.id,
        input: 'And a third?',
        store: false,
      }),
    );
    expectInOrder(upstreamBodySince(beforeThird), [
      'What is the first question?',
      expectedText(protocol),
      'And the second one?',
      expectedText(protocol),
      'And a third?',
    ]);
  });

  it('a store:false continuation echoes the previous_response_id the client named, in every streamed Response object and the final one', async () => {
    const connection = connect();
    const first = completed(await connection.turn({ model: `${protocol}--text`, input: 'First', store: false }));
    expect(first.previous_response_id).toBeNull();
    const secondTurn = await connection.turn({
      model: `${protocol}--text`,
      previous_response_id: first.id,
      input: 'Second',
      store: false,
    });
    const second = completed(secondTurn);
    expect(echoedPreviousIds(secondTurn).length).toBeGreaterThanOrEqual(2);
    expect(echoedPreviousIds(secondTurn)).toEqual(echoedPreviousIds(secondTurn).map(() => first.id));
    const thirdTurn = await connection.turn({
      model: `${protocol}--text`,
      previous_response_id: second.id,
      input: 'Third',
      store: false,
    });
    expect(completed(thirdTurn).previous_response_id).toBe(second.id);
    expect(echoedPreviousIds(thirdTurn)).toEqual(echoedPreviousIds(thirdTurn).map(() => second.id));
  });

  it('a failed continuation evicts the response it continued: continuing from it again is previous_response_not_found', async () => {
    const connection = connect();
    const first = completed(
      await connection.turn({ model: `${protocol}--text`, input: 'Remember the code word: ember.', store: false }),
    );
    const [failure, ...afterFailure] = await connection.turn({
      model: `${protocol}--fail-400`,
      previous_response_id: first.id,
      input: 'This turn fails upstream',
      store: false,
    });
    expect(afterFailure).toEqual([]);
    expect(failure).toMatchObject({ type: 'error', status: 400 });
    const before = upstream.requests.length;
    expectPreviousNotFound(
      await connection.turn({
        model: `${protocol}--text`,
        previous_response_id: first.id,
        input: 'Try to continue after the failed turn',
        store: false,
      }),
      first.id,
    );
    expect(upstream.requests.length).toBe(before);
    // The connection still serves a fresh chain, which continues as usual.
    const fresh = completed(
      await connection.turn({ model: `${protocol}--text`, input: 'Start over with the whole context', store: false }),
    );
    completed(
      await connection.turn({
        model: `${protocol}--text`,
        previous_response_id: fresh.id,
        input: 'And continue',
        store: false,
      }),
    );
  });

  it('a failed turn that did not continue the retained response leaves it in place', async () => {
    const connection = connect();
    const first = completed(await connection.turn({ model: `${protocol}--text`, input: 'Kept', store: false }));
    expect(
      (await connection.turn({ model: `${protocol}--fail-400`, input: 'Unrelated, fails', store: false }))[0],
    ).toMatchObject({ type: 'error', status: 400 });
    const before = upstream.requests.length;
    completed(
      await connection.turn({
        model: `${protocol}--text`,
        previous_response_id: first.id,
        input: 'Continue the kept one',
        store: false,
      }),
    );
    expectInOrder(upstreamBodySince(before), ['Kept', expectedText(protocol), 'Continue the kept one']);
  });

  it('a tool round trip: function_call, then function_call_output continuing it', async () => {
    const connection = connect();
    const first = completed(
      await connection.turn({
        model: `${protocol}--tool-call`,
        tools: [WEATHER_TOOL],
        input: 'Weather in Oslo?',
        store: false,
      }),
    );
    const call = (first.output as ServerEvent[]).find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'get_weather', call_id: expect.any(String) });
    expect(JSON.parse(call!.arguments as string)).toEqual({ city: 'Oslo' });
    const before = upstream.requests.length;
    const second = completed(
      await connection.turn({
        model: `${protocol}--text`,
        tools: [WEATHER_TOOL],
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call!.call_id, output: '{"temperature_c":-3}' }],
        store: false,
      }),
    );
    expect(outputText(second)).toBe(expectedText(protocol));
    // The user turn, the call's arguments (the only other "Oslo"), then the tool output.
    expectInOrder(upstreamBodySince(before), ['Weather in Oslo?', 'Oslo', 'temperature_c']);
  });

  it('a function_call_output whose call is not in the connection-local chain is refused by name, nothing sent upstream', async () => {
    const connection = connect();
    const first = completed(
      await connection.turn({
        model: `${protocol}--tool-call`,
        tools: [WEATHER_TOOL],
        input: 'Weather in Oslo?',
        store: false,
      }),
    );
    const before = upstream.requests.length;
    const refused = await connection.turn({
      model: `${protocol}--text`,
      tools: [WEATHER_TOOL],
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_not_made', output: '{}' }],
      store: false,
    });
    expect(refused).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({
          type: 'invalid_request_error',
          param: 'input.2.call_id',
          message: expect.stringContaining('call_id call_not_made'),
        }),
      }),
    ]);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('previous responses that are not connection-local go to the HTTP route (stored responses)', () => {
  it('a stored response continues on another connection; a store:false turn chained to it continues locally, keeping the stored part', async () => {
    const model = 'openai-chat--text';
    const stored = completed(await connect().turn({ model, input: 'Stored opening line' }));
    const connection = connect();
    const before = upstream.requests.length;
    const second = completed(
      await connection.turn({ model, previous_response_id: stored.id, input: 'Second, not stored', store: false }),
    );
    expectInOrder(upstreamBodySince(before), [
      'Stored opening line',
      expectedText('openai-chat'),
      'Second, not stored',
    ]);
    const beforeThird = upstream.requests.length;
    completed(await connection.turn({ model, previous_response_id: second.id, input: 'Third, local', store: false }));
    expectInOrder(upstreamBodySince(beforeThird), [
      'Stored opening line',
      expectedText('openai-chat'),
      'Second, not stored',
      expectedText('openai-chat'),
      'Third, local',
    ]);
  });

  it('a local continuation of a turn chained to a stored response echoes the local id, not the stored one', async () => {
    const model = 'anthropic-messages--text';
    const stored = completed(await connect().turn({ model, input: 'Stored opening line' }));
    const connection = connect();
    const secondTurn = await connection.turn({
      model,
      previous_response_id: stored.id,
      input: 'Second, not stored',
      store: false,
    });
    expect(echoedPreviousIds(secondTurn)).toEqual(echoedPreviousIds(secondTurn).map(() => stored.id));
    const second = completed(secondTurn);
    const thirdTurn = await connection.turn({
      model,
      previous_response_id: second.id,
      input: 'Third, local',
      store: false,
    });
    expect(completed(thirdTurn).previous_response_id).toBe(second.id);
    expect(echoedPreviousIds(thirdTurn)).toEqual(echoedPreviousIds(thirdTurn).map(() => second.id));
  });

  it('a continuation that fails inside the stream (response.failed) evicts the response it continued', async () => {
    const connection = connect();
    const first = completed(
      await connection.turn({ model: 'anthropic-messages--text', input: 'Before the broken stream', store: false }),
    );
    const failed = await connection.turn({
      model: 'anthropic-messages--truncated',
      previous_response_id: first.id,
      input: 'The upstream stream breaks off',
      store: false,
    });
    expect(failed[0]?.type).toBe('response.created');
    expect(failed.at(-1)?.type).toBe('response.failed');
    expect((failed.at(-1)!.response as ServerEvent).previous_response_id).toBe(first.id);
    expectPreviousNotFound(
      await connection.turn({
        model: 'anthropic-messages--text',
        previous_response_id: first.id,
        input: 'Again',
        store: false,
      }),
      first.id,
    );
  });

  it('a store:false response is not retrievable from another connection', async () => {
    const local = completed(
      await connect().turn({ model: 'openai-chat--text', input: 'Only on this socket', store: false }),
    );
    const [error] = await connect().turn({
      model: 'openai-chat--text',
      previous_response_id: local.id,
      input: 'Elsewhere',
      store: false,
    });
    expect(error).toMatchObject({
      type: 'error',
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
  });
});

describe('errors', () => {
  it('an unknown previous_response_id: the documented error event, then the connection still serves', async () => {
    const connection = connect();
    const outcomesBefore = gateway.outcomes.length;
    const [error, ...rest] = await connection.turn({
      model: 'openai-chat--text',
      previous_response_id: 'resp_unknown0000',
      input: 'Continue',
      store: false,
    });
    expect(rest).toEqual([]);
    expect(error).toMatchObject({
      type: 'error',
      status: 400,
      error: {
        type: 'invalid_request_error',
        code: 'previous_response_not_found',
        param: 'previous_response_id',
        message: expect.stringContaining('resp_unknown0000'),
      },
    });
    await waitFor(() => connection.errors.length === 1);
    completed(await connection.turn({ model: 'openai-chat--text', input: 'Fresh start', store: false }));
    await waitFor(() => gateway.outcomes.length === outcomesBefore + 1);
  });

  it('a bad key is refused at the upgrade with the 401 error shape', async () => {
    const refused = await refusedUpgrade(gateway.origin, { authorization: 'Bearer sk-not-a-real-key-000' });
    expect(refused).toEqual({
      status: 401,
      body: {
        error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      },
    });
    expect((await refusedUpgrade(gateway.origin, {})).status).toBe(401);
    expect((await refusedUpgrade(gateway.origin, { 'api-key': 'sk-not-a-real-key-000' })).status).toBe(401);
    const connection = connect('sk-not-a-real-key-000');
    await waitFor(() => connection.closeCode !== undefined);
    expect(connection.errors[0]?.message).toContain('401');
  });

  it('the Azure-style api-key header is accepted like Bearer', async () => {
    const raw = await RawConnection.open(gateway.origin, { 'api-key': TEST_KEY });
    raw.socket.send(JSON.stringify({ type: 'response.create', model: 'gemini--text', input: 'hi' }));
    expect(outputText(completed(await raw.nextTurn()))).toBe(expectedText('gemini'));
    raw.socket.close();
  });

  it('malformed messages get error events and the connection stays usable', async () => {
    const raw = await RawConnection.open(gateway.origin, TEST_KEY);
    raw.socket.send('this is not JSON');
    expect(await raw.nextTurn()).toEqual([
      expect.objectContaining({ type: 'error', status: 400, error: expect.objectContaining({ code: 'invalid_json' }) }),
    ]);
    raw.socket.send(JSON.stringify({ type: 'response.cancel' }));
    expect(await raw.nextTurn()).toEqual([
      expect.objectContaining({
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code: 'invalid_value', param: 'type' }),
      }),
    ]);
    raw.socket.send(JSON.stringify(['response.create']));
    expect((await raw.nextTurn())[0]).toMatchObject({ type: 'error', status: 400 });
    raw.socket.send(JSON.stringify({ type: 'response.create', model: 'openai-chat--text', input: 42 }));
    expect((await raw.nextTurn())[0]).toMatchObject({
      type: 'error',
      status: 400,
      error: { type: 'invalid_request_error', param: 'input' },
    });
    raw.socket.send(
      JSON.stringify({ type: 'response.create', model: 'openai-chat--text', input: 'hi', background: true }),
    );
    expect((await raw.nextTurn())[0]).toMatchObject({ type: 'error', status: 400, error: { param: 'background' } });
    raw.socket.send(
      Buffer.from(
        JSON.stringify({ type: 'response.create', model: 'openai-chat--text', input: 'Now a good one', stream: true }),
      ),
    );
    expect(outputText(completed(await raw.nextTurn()))).toBe(expectedText('openai-chat'));
    raw.socket.close();
  });

  it('a plain GET without the upgrade answers 426', async () => {
    const response = await fetch(`${gateway.origin}/v1/responses`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(response.status).toBe(426);
    expect(response.headers.get('upgrade')).toBe('websocket');
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
  });
});

describe('one response at a time, cancellation, limits and billing', () => {
  it('a response.create while one is in flight gets an error event; the first response still completes', async () => {
    const connection = connect();
    connection.ws.send({
      type: 'response.create',
      model: 'mock-chat',
      input: 'a slow answer please, word after word [mock:slow=30]',
    });
    await waitFor(() => connection.events.some((event) => event.type === 'response.output_text.delta'));
    connection.ws.send({ type: 'response.create', model: 'mock-chat', input: 'too early' });
    await waitFor(() => connection.events.some((event) => event.type === 'error'));
    const rejection = connection.events.find((event) => event.type === 'error');
    expect(rejection).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', code: 'response_already_in_flight' },
    });
    await waitFor(() => connection.events.some((event) => event.type === 'response.completed'), 10_000);
  });

  it('closing the socket mid-response aborts the upstream request (cancelled outcome, partial usage)', async () => {
    const raw = await RawConnection.open(gateway.origin, TEST_KEY);
    const marker = `cancel-${Date.now()}`;
    raw.socket.send(
      JSON.stringify({
        type: 'response.create',
        model: 'mock-chat',
        input: `${marker}: a long answer, word after word after word [mock:slow=100]`,
      }),
    );
    await waitFor(() => raw.events.filter((event) => event.type === 'response.output_text.delta').length >= 2);
    raw.socket.terminate();
    await waitFor(() => gateway.outcomes.some((o) => o.model === 'mock-chat' && o.status === 'cancelled'), 5000);
    const outcome = gateway.outcomes.find((o) => o.model === 'mock-chat' && o.status === 'cancelled');
    expect(outcome?.usage?.source).toBe('partial');
  });

  it('each response is one outcome billed to the connection key; a key at its RPM limit gets the 429 error event', async () => {
    const created = await fetch(`${gateway.origin}/admin/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'websocket-rpm-1', rpm: 1 }),
    });
    expect(created.status).toBe(201);
    const { apiKey, key } = (await created.json()) as { apiKey: string; key: { keyId: string } };
    const connection = connect(apiKey);
    const outcomesBefore = gateway.outcomes.length;
    completed(await connection.turn({ model: 'openai-responses--text', input: 'One', store: false }));
    const [refusal, ...rest] = await connection.turn({ model: 'openai-responses--text', input: 'Two', store: false });
    expect(rest).toEqual([]);
    expect(refusal).toMatchObject({
      type: 'error',
      status: 429,
      error: { type: 'requests', code: 'rate_limit_exceeded' },
    });
    await waitFor(() => gateway.outcomes.length >= outcomesBefore + 1);
    // Outcomes are emitted just after a response ends: give a stray second one the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const mine = gateway.outcomes.slice(outcomesBefore).filter((o) => o.keyId === key.keyId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'completed', model: 'openai-responses--text' });
    expect(mine[0]?.usage?.source).toBe('reported');
  });
});
