/**
 * The per-request "client went away" signal: aborts when the response closes before its end, calls
 * each listener once, never after removal, never for a response that ended normally; a connection
 * already closed when watching starts counts as gone at once.
 */
import { EventEmitter } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { watchClientDeparture } from '../../../gateway/exchange/client-departure.ts';

function fakeExchange(options: { socketDestroyed?: boolean } = {}) {
  const raw = Object.assign(new EventEmitter(), { writableEnded: false, destroyed: false });
  const request = { raw: { socket: { destroyed: options.socketDestroyed === true } } } as unknown as FastifyRequest;
  return { raw, request, reply: { raw } as unknown as FastifyReply };
}

describe('watchClientDeparture', () => {
  it('aborts once when the response closes before its end, calling the listeners still registered', () => {
    const { raw, request, reply } = fakeExchange();
    const departure = watchClientDeparture(request, reply);
    const calls: string[] = [];
    const removed = (): number => calls.push('removed');
    departure.signal.addEventListener('abort', () => calls.push('a'));
    departure.signal.addEventListener('abort', removed);
    departure.signal.removeEventListener('abort', removed);
    expect(departure.signal.aborted).toBe(false);
    raw.emit('close');
    raw.emit('close');
    expect(departure.signal.aborted).toBe(true);
    expect(calls).toEqual(['a']);
    departure.signal.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['a']);
  });

  it('stays quiet for a response that ended, and after stop()', () => {
    const ended = fakeExchange();
    const first = watchClientDeparture(ended.request, ended.reply);
    ended.raw.writableEnded = true;
    ended.raw.emit('close');
    expect(first.signal.aborted).toBe(false);
    const stopped = fakeExchange();
    const second = watchClientDeparture(stopped.request, stopped.reply);
    second.stop();
    stopped.raw.emit('close');
    expect(second.signal.aborted).toBe(false);
  });

  it('counts a connection closed before watching began as gone at once', () => {
    const { request, reply } = fakeExchange({ socketDestroyed: true });
    expect(watchClientDeparture(request, reply).signal.aborted).toBe(true);
  });
});
