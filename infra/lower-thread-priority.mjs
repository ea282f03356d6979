/**
 * Lowers the scheduling priority of the calling thread only (not the process): Linux gives every
 * thread its own nice value, settable with setpriority(2) on the thread's id
 * (https://man7.org/linux/man-pages/man2/setpriority.2.html, "Linux notes": the nice value is a
 * per-thread attribute), which Node's os.setPriority passes through
 * (https://nodejs.org/api/os.html#ossetprioritypid-priority). Threads this thread starts later
 * inherit the value, so the chdb engine's own thread pools run at it too.
 *
 * The embedded server runs its consumers and the chdb engine at BACKGROUND_NICE, so that when
 * they share a core with the request thread the scheduler lets a request preempt them at once;
 * with cores to spare it changes nothing. Elsewhere than Linux, or when refused, nothing changes.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The nice value of background threads (0 normal … 19 lowest). */
export const BACKGROUND_NICE = 10;

/**
 * Sets the calling thread's nice value to `nice` (default BACKGROUND_NICE).
 * @returns true when it was set, false where threads cannot be addressed (not Linux) or it was refused
 */
export function lowerThisThreadPriority(nice = BACKGROUND_NICE) {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return false;
    setPriority(threadId, nice);
    return true;
  } catch {
    return false;
  }
}
