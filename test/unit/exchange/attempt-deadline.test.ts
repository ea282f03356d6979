import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttemptDeadline } from '../../../gateway/exchange/attempt-deadline.ts';
import { OnceSignal } from '../../../gateway/lifecycle/once-signal.ts';

const limits = (totalMs: number, bytes: number, windowMs: number) => ({
  totalMs,
  requestDeadline: false,
  minStreamRate: { bytes, windowMs },
});

describe('AttemptDeadline', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('aborts at the total deadline with the channel deadline message', () => {
    const deadline = new AttemptDeadline(new OnceSignal(), limits(300, 0, 100));
    vi.advanceTimersByTime(299);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired?.message).toBe(
      "Upstream did not finish its answer within the channel's deadline of 300 ms",
    );
  });

  it('checks every minimum-rate window from the first byte, then aborts on the first slow one', () => {
    const deadline = new AttemptDeadline(new OnceSignal(), limits(10_000, 10, 100));
    vi.advanceTimersByTime(50);
    deadline.countBytes(10);
    for (let window = 0; window < 3; window++) {
      vi.advanceTimersByTime(60);
      deadline.countBytes(10);
      vi.advanceTimersByTime(40);
      expect(deadline.signal.aborted).toBe(false);
    }
    deadline.countBytes(9);
    vi.advanceTimersByTime(100);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.expired?.message).toBe(
      'Upstream stream slower than 10 bytes per 100 ms (9 bytes in the last window)',
    );
    expect(deadline.expired?.allowFailover).toBe(true);
  });

  it('still ends at the total deadline while a fast stream passes every window', () => {
    const deadline = new AttemptDeadline(new OnceSignal(), { ...limits(250, 1, 100), requestDeadline: true });
    for (let ms = 0; ms < 249; ms++) {
      deadline.countBytes(1);
      vi.advanceTimersByTime(1);
    }
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.expired?.message).toBe('Request deadline of the gateway reached after 250 ms of this attempt');
    expect(deadline.expired?.allowFailover).toBe(false);
  });

  it('stops its timer on dispose and follows the client leaving', () => {
    const client = new OnceSignal();
    const disposed = new AttemptDeadline(new OnceSignal(), limits(100, 0, 100));
    disposed.dispose();
    vi.advanceTimersByTime(1000);
    expect(disposed.signal.aborted).toBe(false);
    const left = new AttemptDeadline(client, limits(100, 0, 100));
    client.abort();
    expect(left.signal.aborted).toBe(true);
    expect(left.expired).toBeUndefined();
  });
});
