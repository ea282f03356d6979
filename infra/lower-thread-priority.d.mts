/** Types of lower-thread-priority.mjs (plain JavaScript so the chdb engine's worker can load it without tsx). */
/** The nice value of background threads (0 normal … 19 lowest). */
export declare const BACKGROUND_NICE: number;
/**
 * Sets the calling thread's nice value to `nice` (default BACKGROUND_NICE).
 * @returns true when it was set, false where threads cannot be addressed (not Linux) or it was refused
 */
export declare function lowerThisThreadPriority(nice?: number): boolean;
