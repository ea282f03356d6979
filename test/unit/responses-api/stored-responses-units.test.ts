/**
 * The pure parts of stored responses: input normalisation (ids, string content), the replay form
 * of stored items, input_items paging and query validation, and the answer hook's behaviour on
 * pass-through events (echo, save before the terminal event, refusal of reused ids, a failing
 * store never failing the answer).
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import {
  pageInputItems,
  parseInputItemsQuery,
} from '../../../gateway/responses-api/stored-responses/list-input-items.ts';
import {
  normalizeInputItems,
  replayInputItem,
} from '../../../gateway/responses-api/stored-responses/normalize-input-items.ts';
import { createStoredResponseCapture } from '../../../gateway/responses-api/stored-responses/stored-response-capture.ts';
import { createMemoryResponseStore } from '../../../infra/state-store/memory/memory-response-store.ts';
import type { ResponseStore } from '../../../schemas/state-store/response-store.ts';

const silent = pino({ level: 'silent' });

describe('normalizeInputItems', () => {
  it('turns a string into one user message item with input_text', () => {
    expect(normalizeInputItems('hi')).toEqual([
      {
        id: expect.stringMatching(/^msg_[0-9a-f]{24}$/),
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'hi' }],
      },
    ]);
  });

  it('types easy messages, keeps given ids, and gives every item an id', () => {
    const items = normalizeInputItems([
      { role: 'assistant', content: 'before' },
      { role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      { type: 'function_call', id: 'fc_given', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'something_new' },
      'not an item',
    ]);
    expect(items).toHaveLength(5);
    expect(items[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'before' }],
    });
    expect(items[1]).toMatchObject({ type: 'message', role: 'developer', id: expect.stringMatching(/^msg_/) });
    expect(items[2]!.id).toMatch(/^fco_/);
    expect(items[3]!.id).toBe('fc_given');
    expect(items[4]!.id).toMatch(/^item_/);
  });

  it('replays messages, calls and outputs without ids (they may be listing ids the gateway minted), other items as stored', () => {
    const [user, output, call] = normalizeInputItems([
      { role: 'user', content: 'q' },
      { type: 'function_call_output', call_id: 'c', output: 'x' },
      { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
    ]);
    expect(replayInputItem(user!)).toEqual({
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_text', text: 'q' }],
    });
    expect(replayInputItem(output!)).not.toHaveProperty('id');
    expect(replayInputItem(call!)).toEqual({ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' });
    expect(replayInputItem({ id: 'rs_a', type: 'reasoning', summary: [], encrypted_content: 'x' })).toHaveProperty(
      'id',
      'rs_a',
    );
    expect(replayInputItem({ id: 'msg_ref', type: 'item_reference' })).toHaveProperty('id', 'msg_ref');
  });
});

describe('input_items paging', () => {
  const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  const page = (query: Record<string, unknown>) => {
    const parsed = parseInputItemsQuery(query);
    if (parsed instanceof GatewayError) throw parsed;
    return pageInputItems(items, parsed);
  };

  it('defaults to 20 items, newest first', () => {
    expect(page({})).toEqual({
      object: 'list',
      data: [...items].reverse(),
      first_id: 'e',
      last_id: 'a',
      has_more: false,
    });
  });

  it('pages with limit and after in either order', () => {
    expect(page({ limit: '2' })).toMatchObject({ first_id: 'e', last_id: 'd', has_more: true });
    expect(page({ limit: '2', after: 'd' })).toMatchObject({ first_id: 'c', last_id: 'b', has_more: true });
    expect(page({ order: 'asc', limit: '2', after: 'd' })).toEqual({
      object: 'list',
      data: [{ id: 'e' }],
      first_id: 'e',
      last_id: 'e',
      has_more: false,
    });
    expect(page({ order: 'asc', after: 'e' })).toEqual({
      object: 'list',
      data: [],
      first_id: null,
      last_id: null,
      has_more: false,
    });
    expect(page({ limit: ['1', '3'] })).toMatchObject({ data: [{ id: 'e' }, { id: 'd' }, { id: 'c' }] }); // a repeated parameter: the last value
  });

  it('refuses bad values with the parameter named', () => {
    for (const [query, param] of [
      [{ limit: '0' }, 'limit'],
      [{ limit: '100' }, undefined],
      [{ limit: '1e2' }, 'limit'],
      [{ order: 'DESC' }, 'order'],
      [{ after: '' }, 'after'],
    ] as const) {
      const parsed = parseInputItemsQuery(query);
      expect(parsed instanceof GatewayError ? parsed.param : undefined, JSON.stringify(query)).toBe(param);
    }
    const parsed = parseInputItemsQuery({ after: 'zzz' });
    expect(parsed instanceof GatewayError ? undefined : pageInputItems(items, parsed)).toMatchObject({
      status: 400,
      param: 'after',
    });
  });
});

describe('the answer hook on pass-through events', () => {
  const capture = {
    requestId: 'req_1',
    keyId: 'key_1',
    previousResponseId: 'resp_prev',
    ancestorIds: ['resp_prev'],
    inputItems: [{ id: 'msg_in', type: 'message' }],
    store: true,
  };
  const created = (type: string, status: string, id = 'resp_new') => ({
    event: type,
    data: JSON.stringify({
      type,
      sequence_number: 0,
      response: { id, object: 'response', status, previous_response_id: null, output: [] },
    }),
  });

  it('echoes previous_response_id in lifecycle events, saves the terminal response before returning it, and frames other events unchanged', async () => {
    const store = createMemoryResponseStore();
    const hook = createStoredResponseCapture(store, capture, silent);
    const first = await hook.passThroughEvent(created('response.created', 'in_progress'));
    expect(first.startsWith('event: response.created\ndata: ')).toBe(true);
    expect(JSON.parse(first.split('\n')[1]!.slice(6)).response.previous_response_id).toBe('resp_prev');
    expect(
      await hook.passThroughEvent({
        event: 'response.output_text.delta',
        data: '{"type":"response.output_text.delta","delta":"a\\nb"}',
      }),
    ).toBe('event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"a\\nb"}\n\n');
    expect(await hook.passThroughEvent({ data: 'line one\nline two' })).toBe('data: line one\ndata: line two\n\n');
    expect(await store.get('key_1', 'resp_new')).toBeUndefined();
    await hook.passThroughEvent(created('response.completed', 'completed'));
    expect(await store.get('key_1', 'resp_new')).toMatchObject({
      previousResponseId: 'resp_prev',
      ancestorIds: ['resp_prev'],
      inputItems: capture.inputItems,
      response: { previous_response_id: 'resp_prev', status: 'completed' },
    });
    expect(await hook.passThroughEvent({ data: '[DONE]' })).toBe('data: [DONE]\n\n');
  });

  it('recognises lifecycle events without an event: line, whatever the key order', async () => {
    const store = createMemoryResponseStore();
    const hook = createStoredResponseCapture(store, capture, silent);
    const text = await hook.passThroughEvent({
      data: JSON.stringify({
        response: { id: 'resp_unnamed', status: 'incomplete', output: [{ type: 'message' }] },
        type: 'response.incomplete',
      }),
    });
    expect(text.startsWith('data: {"response":{"id":"resp_unnamed"')).toBe(true);
    expect(JSON.parse(text.slice(6)).response.previous_response_id).toBe('resp_prev');
    expect(await store.get('key_1', 'resp_unnamed')).toMatchObject({ response: { status: 'incomplete' } });
  });

  it('saves nothing for failed responses, store: false, or an id reused from the chain', async () => {
    const store = createMemoryResponseStore();
    await createStoredResponseCapture(store, capture, silent).passThroughEvent(
      created('response.failed', 'failed', 'resp_failed'),
    );
    await createStoredResponseCapture(store, { ...capture, store: false }, silent).jsonBody(
      { id: 'resp_unstored', status: 'completed' },
      true,
    );
    await createStoredResponseCapture(store, capture, silent).jsonBody({ id: 'resp_prev', status: 'completed' }, true);
    expect(await store.getMany('key_1', ['resp_failed', 'resp_unstored', 'resp_prev'])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('answers even when the store fails, and sends the upstream bytes unchanged when nothing needs an echo', async () => {
    const broken: ResponseStore = {
      ...createMemoryResponseStore(),
      put: async () => Promise.reject(new Error('redis down')),
    };
    const hook = createStoredResponseCapture(broken, { ...capture, previousResponseId: null, ancestorIds: [] }, silent);
    expect(await hook.jsonBody({ id: 'resp_x', status: 'completed' }, true)).toBeUndefined();
    await expect(hook.streamFinished({ id: 'resp_y', status: 'completed' })).resolves.toBeUndefined();
  });
});
