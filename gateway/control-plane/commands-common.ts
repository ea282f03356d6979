/**
 * What every control-plane command shares: the typed CommandError, the context a command runs in
 * (clock, actor, secrets), input parsing with zod into field-named 400 errors, the zod pieces for
 * limits, USD quotas and expiry times, and event headers.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ControlEvent, ControlEventHeader } from '../../schemas/control-plane/control-plane-events.ts';

/**
 * A refused command. `status` is the HTTP status the admin API answers with: 400 bad input,
 * 404 unknown id, 409 conflict with the current state. `field` names the offending input field
 * (dotted path, e.g. `models.2`) when there is one.
 */
export class CommandError extends Error {
  readonly status: 400 | 404 | 409;
  readonly field: string | undefined;

  constructor(status: 400 | 404 | 409, message: string, field?: string) {
    super(message);
    this.name = 'CommandError';
    this.status = status;
    this.field = field;
  }
}

/** Secrets commands need: the AES-256-GCM master key (32 bytes) and the key-digest HMAC secret. */
export interface CommandSecrets {
  readonly masterKey: Buffer;
  readonly hmacSecret: Buffer;
}

/** The context of one command: who runs it, when (ms since epoch), with which secrets. */
export interface CommandContext {
  /** ms since epoch; also the events' `occurredAt`. */
  readonly now: number;
  /** `admin`, `cli`, `config-file` or a user id. */
  readonly actor: string;
  readonly secrets: CommandSecrets;
}

/** What a command returns: the events to append (in order) and the result to show. */
export interface CommandResult<T> {
  readonly events: ReadonlyArray<ControlEvent>;
  readonly result: T;
}

/** A fresh event header for `ctx`. */
export function eventHeader(ctx: Pick<CommandContext, 'now' | 'actor'>): ControlEventHeader {
  return { eventId: randomUUID(), occurredAt: ctx.now, actor: ctx.actor };
}

/** A fresh entity id: `prefix` + 16 lowercase hex characters (e.g. `usr_4f…`). */
export function newEntityId(prefix: string): string {
  return prefix + randomUUID().replaceAll('-', '').slice(0, 16);
}

/** The dotted field path of a zod issue (`''` for the body itself). */
function issuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => String(p)).join('.');
}

/**
 * Parses `input` with `schema`. Undefined input (no body) is treated as `{}`.
 * @throws CommandError 400 naming the first offending field: `{ message: "<field>: <problem>", field }`;
 *   unknown fields give `unknown field '<name>'`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input === undefined ? {} : input, { error: typeErrorMessage });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const base = issuePath(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const name = issue.keys[0] ?? '';
    const field = base ? `${base}.${name}` : name;
    return fail(400, `unknown field '${field}'`, field);
  }
  if (base === '' && issue.code === 'invalid_type') return fail(400, 'request body: must be a JSON object');
  const text = issue.code === 'invalid_union' ? (UNION_HINTS[base] ?? issue.message) : issue.message;
  return fail(400, base ? `${base}: ${text}` : text, base || undefined);
}

/**
 * Default wording for schemas without their own messages (the reused config and price-book
 * schemas): `is required`, `expected number, got string`, `must be one of "a", "b"`.
 */
function typeErrorMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value'))
    return 'is required';
  if (issue.code === 'invalid_value') return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'too_small' || issue.code === 'too_big')
    return boundMessage(
      issue.code,
      issue.origin,
      Number(issue.code === 'too_small' ? issue.minimum : issue.maximum),
      issue.inclusive ?? true,
    );
  if (issue.code !== 'invalid_type') return undefined;
  const got = issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input;
  return `expected ${issue.expected}, got ${got}`;
}

/** `must be > 0`, `must not be empty`, `must have at most 3 items`. */
function boundMessage(code: 'too_small' | 'too_big', origin: string, bound: number, inclusive: boolean): string {
  if (origin === 'string' || origin === 'array') {
    if (code === 'too_small' && bound === 1) return 'must not be empty';
    const unit = origin === 'string' ? 'characters' : 'items';
    return `must have ${code === 'too_small' ? 'at least' : 'at most'} ${bound} ${unit}`;
  }
  const op = code === 'too_small' ? (inclusive ? '≥' : '>') : inclusive ? '≤' : '<';
  return `must be ${op} ${bound}`;
}

/** Field-specific wording for union mismatches, whose generic message is just "Invalid input". */
const UNION_HINTS: Readonly<Record<string, string>> = {
  effectiveFrom: 'must be an ISO-8601 date or date-time with a time zone, e.g. 2025-01-01 or 2025-01-01T00:00:00Z',
};

/** Throws a CommandError (typed `never` so it can end an expression). */
export function fail(status: 400 | 404 | 409, message: string, field?: string): never {
  throw new CommandError(status, message, field);
}

/** An RPM/TPM limit: a positive integer, or null for unlimited. */
export const limitField = z
  .number({ error: 'must be a positive integer or null' })
  .int('must be a positive integer or null')
  .positive('must be a positive integer or null')
  .nullable();

/** A USD amount as a JSON number or a decimal string, ≥ 0 with at most 9 decimals; null = unlimited. */
export const usdField = z
  .union([z.number(), z.string()], { error: 'must be a USD amount (number or decimal string) or null' })
  .transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim();
    if (!/^\d+(\.\d{1,9})?$/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'must be a USD amount ≥ 0 with at most 9 decimal places' });
      return z.NEVER;
    }
    return usdTextToNano(text);
  })
  .nullable();

/** An ISO-8601 date-time with an offset (`2030-01-01T00:00:00Z`) → ms since epoch; null = never. */
export const isoTimeField = z
  .string({ error: 'must be an ISO-8601 date-time string or null' })
  .refine(
    (text) => z.iso.datetime({ offset: true }).safeParse(text).success,
    'must be an ISO-8601 date-time with a time zone, e.g. 2030-01-01T00:00:00Z',
  )
  .transform((text) => Date.parse(text))
  .nullable();

/** A display name: 1–200 characters. */
export const nameField = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** A model allowlist: a non-empty array of non-empty model names (deduplicated), or null for every model. */
export const modelsField = z
  .array(z.string({ error: 'must be a model name string' }).min(1, 'must not be empty'), {
    error: 'must be an array of model names or null',
  })
  .min(1, 'must list at least one model (null allows every model)')
  .transform((models) => [...new Set(models)])
  .nullable();

/** "12.5" (≤ 9 decimals, already validated) → nano-USD. */
export function usdTextToNano(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0'));
}

/** nano-USD → a minimal decimal USD string (`5`, `0.25`, `0.000000001`). */
export function nanoToUsd(nano: bigint): string {
  const negative = nano < 0n;
  const abs = negative ? -nano : nano;
  const whole = abs / 1_000_000_000n;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Rejects a future-only time that is not after `now`. @throws CommandError 400 on `field`. */
export function requireFuture(at: number | null | undefined, now: number, field: string): void {
  if (at !== null && at !== undefined && at <= now) fail(400, `${field}: must be in the future`, field);
}

/** Rejects an update body with no fields. @throws CommandError 400. */
export function requireSomeField(input: object): void {
  if (Object.values(input).every((v) => v === undefined)) fail(400, 'request body: no fields to update');
}
