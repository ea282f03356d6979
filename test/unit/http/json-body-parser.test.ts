/**
 * The body parser reads an all-ASCII body through the ASCII decoder and every other body as
 * UTF-8: either way the text it parses is the body's UTF-8 decoding, character for character. For
 * a pass-through it keeps (jsonSourceOf) the body's own bytes when they are valid UTF-8, else that
 * text (and the text of a body under 4 KiB). A body whose strings cannot name `__proto__` or
 * `constructor` is parsed with JSON.parse; every spelling of those members still meets the
 * checked parser's refusal, and malformed JSON its error.
 */
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findJsonLimitViolation, type JsonBodyScan } from '../../../gateway/http/scan-json-body-limits.ts';
import { installJsonBodyParser } from '../../../gateway/http/json-body-parser.ts';
import { jsonSourceOf } from '../../../gateway/exchange/client-request.ts';

const app = Fastify();
beforeAll(async () => {
  installJsonBodyParser(app);
  app.post('/echo', async (request) => {
    const source = jsonSourceOf(request.body as object);
    return typeof source === 'string'
      ? { body: request.body, text: source }
      : { body: request.body, bytes: source && Buffer.from(source).toString('base64') };
  });
  await app.ready();
});
afterAll(() => app.close());

/** POSTs `payload` as application/json to the echo route. */
function post(payload: string | Buffer) {
  return app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
}

/** A JSON body of at least `bytes` bytes whose user text repeats `filler`. */
function bodyOf(filler: string, bytes: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: filler.repeat(Math.ceil(bytes / Buffer.byteLength(filler))) }],
    }),
  );
}

describe('JSON body parser', () => {
  it.each([
    ['ASCII, 8 KiB (the ASCII decoder)', bodyOf('plain words ', 8192)],
    ['ASCII with \\u escapes, 64 KiB', bodyOf('caf\\u00e9 \\ud83d\\ude80 ', 65536)],
    ['UTF-8 text, 8 KiB', bodyOf('café 🚀 naïve ', 8192)],
    ['UTF-8 text after 6 KiB of ASCII', Buffer.concat([bodyOf('x', 6144).subarray(0, -4), Buffer.from('é"}]}')])],
    ['ASCII, 100 bytes', bodyOf('hi ', 60)],
  ])(
    '%s: parses the UTF-8 decoding of the body and keeps its bytes (4 KiB or more) or that text',
    async (_name, body) => {
      const response = await post(body);
      expect(response.statusCode).toBe(200);
      const { body: parsed, bytes, text } = response.json<{ body: unknown; bytes?: string; text?: string }>();
      if (body.length >= 4096) {
        expect(text).toBeUndefined();
        expect(bytes).toBe(body.toString('base64'));
      } else {
        expect(bytes).toBeUndefined();
        expect(text).toBe(body.toString('utf8'));
      }
      expect(parsed).toEqual(JSON.parse(body.toString('utf8')));
    },
  );

  it('decodes a body with a byte that is not UTF-8 as UTF-8 does (U+FFFD), whatever its size, and keeps that text', async () => {
    const body = Buffer.concat([bodyOf('y', 8192).subarray(0, -4), Buffer.from([0xff]), Buffer.from('"}]}')]);
    const response = await post(body);
    const { text } = response.json<{ text: string }>();
    expect(text).toBe(body.toString('utf8'));
    expect(text).toContain('\uFFFD');
  });

  it.each([
    ['__proto__ as written', '{"a":1,"__proto__":{"polluted":true}}'],
    ['__proto__ with escapes', '{"a":1,"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":true}}'],
    [
      '__proto__ all escaped',
      `{"${'__proto__'
        .split('')
        .map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
        .join('')}":{"polluted":true}}`,
    ],
    ['constructor.prototype', '{"a":{"constructor":{"prototype":{"polluted":true}}}}'],
    [
      'constructor all escaped',
      `{"a":{"${'constructor'
        .split('')
        .map((c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
        .join('')}":{"prototype":{"polluted":true}}}}`,
    ],
  ])('refuses %s as the checked parser does (400)', async (_name, text) => {
    const response = await post(text);
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(text)).toBeTypeOf('object'); // valid JSON: refused for the member alone
    expect(response.json()).toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("answers malformed and empty bodies with the checked parser's errors", async () => {
    const malformed = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":1,}',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'FST_ERR_CTP_INVALID_JSON_BODY' });
  });

  it('scan: flags every string that could decode to a guarded key, and none of an ordinary request', () => {
    const flagged = (text: string): boolean => {
      const scan: JsonBodyScan = { guardedKey: false };
      expect(findJsonLimitViolation(Buffer.from(text), undefined, scan)).toBeUndefined();
      return scan.guardedKey;
    };
    expect(
      flagged(
        '{"model":"gpt-4o-mini","max_tokens":64,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hello there, how are you today?"}]}',
      ),
    ).toBe(false);
    expect(flagged('{"x":"__proto__"}')).toBe(true);
    expect(flagged('{"constructor":1}')).toBe(true);
    expect(flagged('{"k":"a \\"quoted\\" word"}')).toBe(true); // 9–66 bytes with a backslash
    expect(flagged(`{"k":"${'\\u0041'.repeat(11)}x"}`)).toBe(false); // 67 bytes: too long to be either
    expect(flagged('{"k":"\\n"}')).toBe(false); // 2 bytes: too short
    expect(flagged('{"k":"unterminated')).toBe(true);
  });
});
