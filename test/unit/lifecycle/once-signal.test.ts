import { describe, expect, it } from 'vitest';
import { OnceSignal } from '../../../gateway/lifecycle/once-signal.ts';

describe('OnceSignal', () => {
  it('calls every listener once, in the order added, and records the reason', () => {
    const signal = new OnceSignal();
    const calls: string[] = [];
    const a = (): void => void calls.push('a');
    signal.addEventListener('abort', a);
    signal.addEventListener('abort', () => calls.push('b'));
    signal.addEventListener('abort', a); // already added: not added again
    signal.addEventListener('abort', () => calls.push('c'));
    signal.abort('gone');
    signal.abort('again');
    expect(calls).toEqual(['a', 'b', 'c']);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
  });

  it('keeps the order when the first listener is removed and others are added', () => {
    const signal = new OnceSignal();
    const calls: string[] = [];
    const a = (): void => void calls.push('a');
    const b = (): void => void calls.push('b');
    signal.addEventListener('abort', a);
    signal.addEventListener('abort', b);
    signal.removeEventListener('abort', a);
    signal.addEventListener('abort', () => calls.push('c'));
    signal.removeEventListener('abort', b);
    signal.addEventListener('abort', b);
    signal.abort();
    expect(calls).toEqual(['c', 'b']);
  });

  it('calls a lone listener unless removed, and ignores listeners added after the abort', () => {
    const signal = new OnceSignal();
    const calls: string[] = [];
    const a = (): void => void calls.push('a');
    signal.addEventListener('abort', a);
    signal.removeEventListener('abort', a);
    signal.abort();
    signal.addEventListener('abort', a);
    expect(calls).toEqual([]);
    const other = new OnceSignal();
    other.addEventListener('abort', a);
    other.abort();
    expect(calls).toEqual(['a']);
  });
});
