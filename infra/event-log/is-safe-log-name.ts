/**
 * Topic and consumer-group names become file names in the embedded log and the spool, so both
 * adapters accept only Kafka's legal topic characters: 1–249 of `[A-Za-z0-9._-]`, not `.`/`..`.
 */
const LEGAL = /^[A-Za-z0-9._-]{1,249}$/;

/** True when `name` is a legal Kafka topic name and therefore a safe single path component. */
export function isSafeLogName(name: string): boolean {
  return LEGAL.test(name) && name !== '.' && name !== '..';
}
