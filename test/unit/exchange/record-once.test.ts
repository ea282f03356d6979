/**
 * recordOnce (exchange/admission-steps.ts): the first outcome of a run is recorded and any later
 * one dropped; a run that rejects, or throws before it returns a promise, is still recorded once,
 * as the outcome it recorded itself, or else `failed` with the status already sent, or `cancelled`
 * (499) when the client left.
 */
import pino from 'pino';
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { recordOnce, type RecordedRequest } from '../../../gateway/exchange/admission-steps.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import type { InboundCodec } from '../../../gateway/inbound/inbound-codec.ts';

const log = pino({ level: 'silent' });

/** A request whose answer (status 502) was already sent, so nothing is rendered; `left`: the client went away. */
function target(left = false): RecordedRequest {
  return {
    requestId: 'req-1',
    reply: { sent: true, raw: { statusCode: 502 } } as unknown as FastifyReply,
    codec: {} as InboundCodec,
    clientGone: { aborted: left } as RecordedRequest['clientGone'],
    failedOutcome: (end) => ({ requestId: 'req-1', ...end }) as unknown as ExchangeOutcome,
  };
}

const outcome = (status: string): ExchangeOutcome => ({ requestId: 'req-1', status }) as unknown as ExchangeOutcome;

describe('recordOnce', () => {
  it('records the first outcome and drops a second', async () => {
    const recorded: ExchangeOutcome[] = [];
    const first = outcome('completed');
    const result = await recordOnce({ log, onOutcome: (o) => recorded.push(o) }, target(), async (onOutcome) => {
      onOutcome(first);
      onOutcome(outcome('failed'));
      return first;
    });
    expect(result).toBe(first);
    expect(recorded).toEqual([first]);
  });

  it('records a run that rejects or throws at once as failed with the status sent, or cancelled when the client left', async () => {
    const rejecting = (): Promise<ExchangeOutcome> => Promise.reject(new Error('bug'));
    const throwing = (): Promise<ExchangeOutcome> => {
      throw new Error('bug');
    };
    for (const run of [rejecting, throwing]) {
      for (const left of [false, true]) {
        const recorded: ExchangeOutcome[] = [];
        const result = recordOnce({ log, onOutcome: (o) => recorded.push(o) }, target(left), run);
        expect(result).toBeInstanceOf(Promise);
        const expected = left
          ? { status: 'cancelled', httpStatus: 499, errorMessage: 'Internal gateway error: bug' }
          : { status: 'failed', httpStatus: 502, errorMessage: 'Internal gateway error: bug' };
        expect(await result).toMatchObject(expected);
        expect(recorded).toEqual([await result]);
      }
    }
  });

  it('keeps the outcome a run recorded before it rejected', async () => {
    const recorded: ExchangeOutcome[] = [];
    const served = outcome('completed');
    const result = await recordOnce({ log, onOutcome: (o) => recorded.push(o) }, target(), (onOutcome) => {
      onOutcome(served);
      return Promise.reject(new Error('late bug'));
    });
    expect(result).toBe(served);
    expect(recorded).toEqual([served]);
  });
});
