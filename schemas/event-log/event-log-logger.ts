/**
 * The optional logger the event-log adapters report to (kafkajs warnings and errors, spooling,
 * retries). Messages and `extra` never carry record values, so secrets cannot leak through them.
 */

/** Severity of a log line. */
export type EventLogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Receives one log line; `extra` holds structured fields (topic, counts, error message). */
export type EventLogLogger = (level: EventLogLevel, message: string, extra?: Record<string, unknown>) => void;

/** Discards everything: the default when no logger is given. */
export const silentLogger: EventLogLogger = () => {};
