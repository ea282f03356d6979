/**
 * Snapshots of the embedded (memory) state store in the data directory, so that a restart folds
 * only the log written after the snapshot (infra/processes/open-rebuilt-memory-state.ts). One file,
 * `<dataDir>/state/memory-state.json`:
 *
 *   { "format": "tollgate.memory-state", "version": 1, "writtenAt": ms,
 *     "covers": { "<topic>": byte position, … },   where the fold resumes in each topic file (partition 0)
 *     "state": { keySpend, userSpend, channels, watermarks, budgets? },   MemoryStateContent, nano-USD as decimal strings
 *     "sha256": hex digest of JSON.stringify([covers, state]) }
 *
 * `budgets` (the budget ledger's window counters: spend, watermarks, alert marks; never its holds)
 * is absent from files written before budgets existed, which are read as holding no budget spend.
 *
 * The state holds the effect of every record before `covers` (and possibly of later ones, which
 * the watermarks in `state` then skip). Written atomically: a temporary file, fdatasync, rename
 * (https://man7.org/linux/man-pages/man2/rename.2.html: the name points at the old or the new file,
 * never at a partial one). A file that does not parse, has another format or version, or whose
 * digest does not match is reported as unusable, never trusted.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { MemoryChannelContent, MemoryStateContent } from './memory-state-store.ts';
import { replaceFileAtomically } from '../../replace-file-atomically.ts';

/** A snapshot: the store's content and where in each topic file its fold resumes. */
export interface MemoryStateSnapshot {
  /** ms since epoch */
  readonly writtenAt: number;
  /** topic (as consumers name it, without TOLLGATE_TOPIC_PREFIX) → byte position of the first record not covered */
  readonly covers: Readonly<Record<string, number>>;
  readonly state: MemoryStateContent;
}

/** The outcome of reading the snapshot file. */
export type SnapshotRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'unusable'; readonly reason: string }
  | { readonly kind: 'found'; readonly snapshot: MemoryStateSnapshot };

const FORMAT = 'tollgate.memory-state';
const VERSION = 1;

/** Where the snapshot of a data directory lives. */
export function memoryStateSnapshotPath(dataDir: string): string {
  return join(dataDir, 'state', 'memory-state.json');
}

const offset = z
  .number()
  .int()
  .min(0)
  .max(2 ** 53);
const nanoUsd = z.string().regex(/^\d{1,19}$/);
const counter = z.tuple([z.string().min(1), nanoUsd]);
const time = z.number().finite().min(0);
const tokens = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const budgetCounter = z.object({
  budgetId: z.string().min(1),
  windowStartMs: z.number().int(),
  windowEndMs: z.number().int().nullable(),
  spentNanoUsd: nanoUsd,
  spentTokens: tokens,
  watermarks: z.array(z.tuple([z.string().min(1), offset])),
  alertedPercents: z.array(z.number().positive().max(100)),
});
/** A channel's folded state; `totalLatencyEwmaMs` is absent from files written before it existed (read as 0). */
const channelStateSchema = z.object({
  latencyEwmaMs: time,
  totalLatencyEwmaMs: time.optional(),
  consecutiveFailures: z.number().int().min(0),
  failureCooldownUntil: time,
  retryAfterUntil: time,
  lastAt: time,
  lastSuccessAt: time.optional(),
  lastFailureAt: time.optional(),
});
const fileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  writtenAt: time,
  covers: z.record(z.string().min(1), offset),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  state: z.object({
    keySpend: z.array(counter),
    userSpend: z.array(counter),
    watermarks: z.array(z.tuple([z.string().min(1), offset])),
    channels: z.array(
      z.object({
        channelId: z.string().min(1),
        windowMs: z.number().positive(),
        window: z.array(z.tuple([time, z.boolean()])),
        state: channelStateSchema,
      }),
    ),
    budgets: z.object({ counters: z.array(budgetCounter) }).optional(),
  }),
});

/** The JSON form of a snapshot's state: bigint counters as decimal strings. */
function stateToJson(state: MemoryStateContent): z.infer<typeof fileSchema>['state'] {
  const counters = (entries: MemoryStateContent['keySpend']): Array<[string, string]> =>
    entries.map(([id, value]) => [id, value.toString()]);
  return {
    keySpend: counters(state.keySpend),
    userSpend: counters(state.userSpend),
    watermarks: state.watermarks.map(([name, at]) => [name, at]),
    channels: state.channels.map((channel) => ({
      channelId: channel.channelId,
      windowMs: channel.windowMs,
      window: channel.window.map(([at, failed]) => [at, failed]),
      state: channelStateToJson(channel.state),
    })),
    budgets: {
      counters: (state.budgets?.counters ?? []).map((content) => ({
        ...content.counter,
        spentNanoUsd: content.spentNanoUsd.toString(),
        spentTokens: content.spentTokens,
        watermarks: content.watermarks.map(([name, at]) => [name, at]),
        alertedPercents: [...content.alertedPercents],
      })),
    },
  };
}

/**
 * A channel's folded state with its fields in the order of the file schema: the digest is taken
 * over the parsed file, whose fields come out in that order, so the written text must use it too
 * (a state folded from an older snapshot may hold its fields in another order).
 */
function channelStateToJson(state: MemoryChannelContent['state']): z.infer<typeof channelStateSchema> {
  return {
    latencyEwmaMs: state.latencyEwmaMs,
    totalLatencyEwmaMs: state.totalLatencyEwmaMs ?? 0,
    consecutiveFailures: state.consecutiveFailures,
    failureCooldownUntil: state.failureCooldownUntil,
    retryAfterUntil: state.retryAfterUntil,
    lastAt: state.lastAt,
    ...(state.lastSuccessAt === undefined ? {} : { lastSuccessAt: state.lastSuccessAt }),
    ...(state.lastFailureAt === undefined ? {} : { lastFailureAt: state.lastFailureAt }),
  };
}

function digestOf(covers: Readonly<Record<string, number>>, state: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([covers, state]))
    .digest('hex');
}

/** The snapshot file's text. */
export function encodeMemoryStateSnapshot(snapshot: MemoryStateSnapshot): string {
  const state = stateToJson(snapshot.state);
  return JSON.stringify({
    format: FORMAT,
    version: VERSION,
    writtenAt: snapshot.writtenAt,
    covers: snapshot.covers,
    sha256: digestOf(snapshot.covers, state),
    state,
  });
}

/**
 * Parses a snapshot file's text.
 * @throws Error naming what is wrong: not JSON, another format or version, a field out of range,
 *   or a digest that does not match the content
 */
export function decodeMemoryStateSnapshot(text: string): MemoryStateSnapshot {
  const parsed = fileSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(
      `not a ${FORMAT} v${VERSION} file: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim(),
    );
  const { covers, state, sha256, writtenAt } = parsed.data;
  if (digestOf(covers, state) !== sha256) throw new Error('its sha256 does not match its content');
  const counters = (entries: ReadonlyArray<readonly [string, string]>): Array<[string, bigint]> =>
    entries.map(([id, value]) => [id, BigInt(value)]);
  return {
    writtenAt,
    covers,
    state: {
      keySpend: counters(state.keySpend),
      userSpend: counters(state.userSpend),
      watermarks: state.watermarks,
      channels: state.channels,
      ...(state.budgets
        ? {
            budgets: {
              counters: state.budgets.counters.map((content) => ({
                counter: {
                  budgetId: content.budgetId,
                  windowStartMs: content.windowStartMs,
                  windowEndMs: content.windowEndMs,
                },
                spentNanoUsd: BigInt(content.spentNanoUsd),
                spentTokens: content.spentTokens,
                watermarks: content.watermarks,
                alertedPercents: content.alertedPercents,
              })),
            },
          }
        : {}),
    },
  };
}

/**
 * Reads the snapshot at `path`: `none` when there is no file, `unusable` (with the reason) when it
 * cannot be read or decoded, else `found`.
 */
export async function readMemoryStateSnapshot(path: string): Promise<SnapshotRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unusable', reason: (error as Error).message };
  }
  try {
    return { kind: 'found', snapshot: decodeMemoryStateSnapshot(text) };
  } catch (error) {
    return { kind: 'unusable', reason: (error as Error).message };
  }
}

/**
 * Writes the snapshot atomically (temporary file beside it, fdatasync, rename).
 * @throws the I/O Error; the previous snapshot then stays in place
 */
export async function writeMemoryStateSnapshot(path: string, snapshot: MemoryStateSnapshot): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await replaceFileAtomically(path, encodeMemoryStateSnapshot(snapshot));
}
