/**
 * Connection-local continuation (WebSocket mode, store:false): what is retained from a finished
 * response and how a create naming it is expanded; the client-message envelope; the error event
 * built from an HTTP error answer.
 */
import { describe, expect, it } from 'vitest';
import {
  expandContinuation,
  retainResponse,
} from '../../../gateway/responses-api/websocket/connection-local-continuation.ts';
import { parseClientEvent } from '../../../gateway/responses-api/websocket/parse-client-event.ts';
import { errorEventFromHttpAnswer } from '../../../gateway/responses-api/websocket/websocket-error-event.ts';

const output = [
  { type: 'reasoning', id: 'rs_1', summary: [] },
  { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'opaque' },
  {
    type: 'function_call',
    id: 'fc_1',
    call_id: 'call_1',
    name: 'get_weather',
    arguments: '{"city":"Oslo"}',
    status: 'completed',
  },
];

describe('retainResponse', () => {
  it('keeps the input items then the output items made fit for input (ids dropped, reasoning only with encrypted content)', () => {
    const retained = retainResponse(
      { model: 'm', input: 'Weather in Oslo?', store: false },
      { id: 'resp_1', output },
      10_000,
    );
    expect(retained).toEqual({
      id: 'resp_1',
      items: [
        { type: 'message', role: 'user', content: 'Weather in Oslo?' },
        { type: 'reasoning', summary: [], encrypted_content: 'opaque' },
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{"city":"Oslo"}',
          status: 'completed',
        },
      ],
      bytes: expect.any(Number),
    });
  });

  it('retains nothing unless store is false, or when the items exceed the byte bound', () => {
    expect(retainResponse({ input: 'x' }, { id: 'resp_1', output }, 10_000)).toBeUndefined();
    expect(retainResponse({ input: 'x', store: true }, { id: 'resp_1', output }, 10_000)).toBeUndefined();
    expect(retainResponse({ input: 'x', store: false }, { id: 'resp_1', output }, 50)).toBeUndefined();
    expect(retainResponse({ input: 42, store: false }, { id: 'resp_1', output }, 10_000)).toBeUndefined();
  });

  it('remembers a stored previous response the retained request still named', () => {
    expect(
      retainResponse(
        { input: [], store: false, previous_response_id: 'resp_stored' },
        { id: 'resp_2', output: [] },
        10_000,
      ),
    ).toMatchObject({ id: 'resp_2', storedPreviousResponseId: 'resp_stored' });
  });
});

describe('expandContinuation', () => {
  const retained = { id: 'resp_1', items: [{ type: 'message', role: 'user', content: 'first' }], bytes: 1 };

  it('prepends the retained items, drops previous_response_id, keeps only the new instructions', () => {
    expect(
      expandContinuation({ model: 'm', previous_response_id: 'resp_1', input: 'second', store: false }, retained),
    ).toEqual({
      model: 'm',
      input: [
        { type: 'message', role: 'user', content: 'first' },
        { type: 'message', role: 'user', content: 'second' },
      ],
      store: false,
    });
  });

  it('carries a stored previous response on, and leaves a malformed input to the HTTP route', () => {
    expect(
      expandContinuation(
        { previous_response_id: 'resp_1', input: [] },
        { ...retained, storedPreviousResponseId: 'resp_0' },
      ),
    ).toMatchObject({ previous_response_id: 'resp_0' });
    expect(expandContinuation({ previous_response_id: 'resp_1', input: 42 }, retained)).toEqual({
      previous_response_id: 'resp_1',
      input: 42,
    });
  });
});

describe('parseClientEvent', () => {
  it('strips type and stream and forces streaming', () => {
    expect(parseClientEvent(Buffer.from('{"type":"response.create","model":"m","input":"hi","stream":false}'))).toEqual(
      { ok: true, body: { model: 'm', input: 'hi', stream: true } },
    );
  });

  it.each([
    ['{', 'invalid_json', null],
    ['"response.create"', 'invalid_value', 'type'],
    ['{"type":"response.cancel"}', 'invalid_value', 'type'],
    ['{"type":"response.create","background":true}', 'unsupported_parameter', 'background'],
    ['{"type":"response.create","generate":false}', 'unsupported_parameter', 'generate'],
  ])('%s → 400 %s', (text, code, param) => {
    const parsed = parseClientEvent(Buffer.from(text));
    expect(parsed).toMatchObject({
      ok: false,
      error: { type: 'error', status: 400, code, param, error: { type: 'invalid_request_error', code, param } },
    });
  });
});

describe('errorEventFromHttpAnswer', () => {
  it('keeps the OpenAI error object and the status', () => {
    const body = JSON.stringify({
      error: {
        message: "Previous response with id 'resp_x' not found.",
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
    expect(errorEventFromHttpAnswer(400, body)).toEqual({
      type: 'error',
      status: 400,
      error: {
        message: "Previous response with id 'resp_x' not found.",
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
      code: 'previous_response_not_found',
      message: "Previous response with id 'resp_x' not found.",
      param: 'previous_response_id',
    });
  });

  it('wraps a body that is not the envelope', () => {
    expect(errorEventFromHttpAnswer(502, 'Bad Gateway')).toMatchObject({
      status: 502,
      error: { type: 'server_error', message: 'Bad Gateway', code: null, param: null },
    });
  });
});
