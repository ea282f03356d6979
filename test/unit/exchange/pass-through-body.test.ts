import { describe, expect, it } from 'vitest';
import { rememberJsonSource } from '../../../gateway/exchange/client-request.ts';
import { passThroughBody } from '../../../gateway/exchange/pass-through-policy.ts';

/** A body as the JSON body parser leaves it for valid UTF-8: the parsed object, its bytes remembered. */
function parsed(text: string): Record<string, unknown> {
  const body = JSON.parse(text) as Record<string, unknown>;
  rememberJsonSource(body, Buffer.from(text));
  return body;
}

/** A forwarded body as text. */
function asText(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
}

describe('pass-through body', () => {
  const text = '{ "model": "gpt-x",  "temperature": 1.0, "messages": [{"role":"user","content":"hi"}] }';

  it("forwards the client's own bytes when the model keeps its name upstream", () => {
    const bytes = Buffer.from(text);
    const body = JSON.parse(text) as Record<string, unknown>;
    rememberJsonSource(body, bytes);
    expect(passThroughBody('openai-chat', body, 'gpt-x')).toBe(bytes);
  });

  it('forwards the remembered text when the bytes were not valid UTF-8', () => {
    const decoded = '{"model":"gpt-x","messages":[{"role":"user","content":"\uFFFD"}]}';
    const body = JSON.parse(decoded) as Record<string, unknown>;
    rememberJsonSource(body, decoded);
    expect(passThroughBody('openai-chat', body, 'gpt-x')).toBe(decoded);
  });

  it('serializes the object with the upstream model when the channel renames the model', () => {
    const sent = JSON.parse(asText(passThroughBody('openai-chat', parsed(text), 'gpt-x-2025'))) as Record<
      string,
      unknown
    >;
    expect(sent).toMatchObject({ model: 'gpt-x-2025', temperature: 1 });
  });

  it('serializes a body that was not parsed from the request (built or resolved by the gateway)', () => {
    const built = JSON.parse(text) as Record<string, unknown>;
    expect(passThroughBody('openai-chat', built, 'gpt-x')).toBe(JSON.stringify(built));
  });

  it('forwards a Gemini body as it came (the model is in the URL)', () => {
    const gemini = '{"contents":[{"role":"user","parts":[{"text":"hi"}]}] }';
    expect(asText(passThroughBody('gemini', parsed(gemini), 'gemini-2.5-flash'))).toBe(gemini);
  });

  it('leaves out a Responses previous_response_id even when the model keeps its name', () => {
    const responses = '{"model":"gpt-x","previous_response_id":"resp_1","input":"hi"}';
    const sent = JSON.parse(asText(passThroughBody('openai-responses', parsed(responses), 'gpt-x'))) as Record<
      string,
      unknown
    >;
    expect(sent).toEqual({ model: 'gpt-x', input: 'hi' });
  });
});
