/**
 * Framework errors are classified without quoting the request, and the client format of an
 * unrouted request is chosen from its path.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import { classifyFrameworkError } from '../../../gateway/http/client-error-handler.ts';
import { codecForTarget } from '../../../gateway/http/codec-for-path.ts';

describe('codecForTarget', () => {
  it.each([
    ['/v1/messages', {}, 'anthropic-messages'],
    ['/v1/messages/count_tokens%ZZ?key=x', {}, 'anthropic-messages'],
    ['/v1beta/models/x:generateContent', {}, 'gemini'],
    ['/v1beta/anything', {}, 'gemini'],
    ['/v1/models/x:countTokens', {}, 'gemini'],
    ['/v1/models/x', {}, 'openai-chat'],
    ['/v1/models/x', { 'anthropic-version': '2023-06-01' }, 'anthropic-messages'],
    ['/v1/models?key=abc', {}, 'gemini'],
    ['/v1/models?key=%ZZ', { 'x-goog-api-key': 'k' }, 'gemini'],
    ['/v1/responses/abc', {}, 'openai-responses'],
    ['/v1/chat/completions%ZZ', { 'anthropic-version': '1' }, 'openai-chat'],
    ['/elsewhere', {}, 'openai-chat'],
  ] as const)('%s %o → %s', (target, headers, format) => {
    expect(codecForTarget(target, headers).format).toBe(format);
  });
});

describe('classifyFrameworkError', () => {
  const secretUrl = '/v1/chat/completions%ZZ?key=sk-secret-123';
  it.each([
    [
      Object.assign(new Error(`'${secretUrl}' is not a valid url component`), {
        code: 'FST_ERR_BAD_URL',
        statusCode: 400,
      }),
      400,
    ],
    [
      Object.assign(new Error(`'${secretUrl}' is exceeding the max param length`), {
        code: 'FST_ERR_MAX_PARAM_LENGTH',
        statusCode: 414,
      }),
      414,
    ],
    [new SyntaxError('Unexpected token \'s\', "sk-secret-123" is not valid JSON'), 400],
    [
      Object.assign(new Error(`header sk-secret-123 is wrong`), { code: 'FST_ERR_SOMETHING_NEW', statusCode: 422 }),
      422,
    ],
  ])('%s → %i without quoting it', (error, status) => {
    const classified = classifyFrameworkError(error, 1024);
    expect(classified.status).toBe(status);
    expect(classified.message).not.toContain('sk-secret-123');
  });

  it('passes a GatewayError from a body parser through unchanged', () => {
    const error = new GatewayError('request-too-large', 'too long');
    expect(classifyFrameworkError(error, 1024)).toBe(error);
  });

  it('turns anything else into a 500 without its message', () => {
    const classified = classifyFrameworkError(new RangeError('Maximum call stack size exceeded'), 1024);
    expect(classified.status).toBe(500);
    expect(classified.message).toBe('Internal gateway error');
  });
});
