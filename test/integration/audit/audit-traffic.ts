/**
 * Traffic and control events for the audit-command tests, published as the gateway would:
 * Avro single-object encoded, keyed by request id (traffic) or entity id (control), through the
 * event log the settings open. Also: running a command in-process with the settings' environment,
 * and listing the consumer groups a command left behind.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import { controlEventKey, encodeControlEvent } from '../../../schemas/control-plane/control-event-codec.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { encodeTrafficEvent, trafficEventKey } from '../../../schemas/events/traffic-event-codec.ts';
import type {
  FailoverOccurred,
  RequestCompleted,
  TokenUsage,
  TrafficEvent,
  UsageRecorded,
} from '../../../schemas/events/traffic-events.ts';
import { TOPICS, CONFIG_TOPIC } from '../../../schemas/topics.ts';
import { runOpsCommand } from '../../../infra/processes/tollgate-ops.ts';
import type { EngineSettings } from '../../../infra/open-adapters.ts';
import { engineEnvironment } from '../../support/pipeline-harness.ts';

/** What a request of the tests looks like. */
export interface RequestSpec {
  readonly requestId: string;
  readonly keyId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  readonly model?: string;
  readonly upstreamModel?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** PriceSet events published before it (the price book it is billed with); default null. */
  readonly priceRevision?: number | null;
}

function tokenUsage(spec: RequestSpec): TokenUsage {
  return {
    inputTokens: spec.inputTokens ?? 1000,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: spec.outputTokens ?? 500,
    reasoningTokens: 0,
    usageSource: 'reported',
  };
}

/** The RequestCompleted event of a served request (event id `rc-<requestId>`). */
export function requestCompleted(spec: RequestSpec): TrafficEvent {
  const event: RequestCompleted = {
    eventId: `rc-${spec.requestId}`,
    occurredAt: spec.occurredAt,
    requestId: spec.requestId,
    keyId: spec.keyId,
    userId: null,
    clientFormat: 'openai-chat',
    model: spec.model ?? 'client-model',
    channelId: 'ch-audit',
    provider: 'mock',
    upstreamModel: spec.upstreamModel ?? 'audit-model',
    stream: false,
    passThrough: false,
    status: 'completed',
    httpStatus: 200,
    errorKind: null,
    latencyMs: 120,
    ttfbMs: 40,
    attempts: 1,
    usage: tokenUsage(spec),
    priceRevision: spec.priceRevision ?? null,
    upstreamRequestId: null,
    startedAt: null,
    teamId: null,
    endUserId: null,
    tags: [],
    operation: 'generation',
    modelChain: [],
    answeredModel: null,
    affinity: '',
    credentialId: null,
    credentialRotations: 0,
    cacheWrite1hTokens: 0,
  };
  return { type: 'RequestCompleted', event };
}

/** The UsageRecorded event of a served request (event id `ur-<requestId>`). */
export function usageRecorded(spec: RequestSpec): TrafficEvent {
  const event: UsageRecorded = {
    eventId: `ur-${spec.requestId}`,
    occurredAt: spec.occurredAt,
    requestId: spec.requestId,
    keyId: spec.keyId,
    userId: null,
    model: spec.model ?? 'client-model',
    upstreamModel: spec.upstreamModel ?? 'audit-model',
    channelId: 'ch-audit',
    provider: 'mock',
    ...tokenUsage(spec),
    priceRevision: spec.priceRevision ?? null,
    teamId: null,
    endUserId: null,
    tags: [],
    budgetCounters: [],
    operation: 'generation',
    cacheWrite1hTokens: 0,
  };
  return { type: 'UsageRecorded', event };
}

/** A FailoverOccurred event of the request (event id `fo-<requestId>`). */
export function failoverOccurred(spec: RequestSpec): TrafficEvent {
  const event: FailoverOccurred = {
    eventId: `fo-${spec.requestId}`,
    occurredAt: spec.occurredAt,
    requestId: spec.requestId,
    keyId: spec.keyId,
    model: spec.model ?? 'client-model',
    channelId: 'ch-down',
    errorKind: 'upstream-unavailable',
    upstreamStatus: 503,
    latencyMs: 30,
    retryAfterMs: null,
    nextChannelId: 'ch-audit',
  };
  return { type: 'FailoverOccurred', event };
}

/** A PriceSet for `model` on every channel, in effect since 2020 (USD per million tokens). */
export function priceSet(priceId: string, model: string, inputPerMTok: number, outputPerMTok: number): ControlEvent {
  const since = Date.UTC(2020, 0, 1);
  return {
    type: 'PriceSet',
    event: {
      eventId: `ps-${priceId}`,
      occurredAt: since,
      actor: 'admin',
      priceId,
      model,
      channel: null,
      inputPerMTok,
      outputPerMTok,
      cacheReadPerMTok: null,
      cacheWritePerMTok: null,
      effectiveFrom: since,
    },
  };
}

/** Publishes traffic events to their topics. */
export function publishTraffic(log: EventLog, events: ReadonlyArray<TrafficEvent>): void {
  const topic = {
    RequestCompleted: TOPICS.requests,
    UsageRecorded: TOPICS.usage,
    FailoverOccurred: TOPICS.failovers,
    BudgetThresholdCrossed: TOPICS.alerts,
  } as const;
  for (const event of events)
    log.publish({ topic: topic[event.type], key: trafficEventKey(event), value: encodeTrafficEvent(event) });
}

/** Publishes control events to the config topic. */
export function publishControl(log: EventLog, events: ReadonlyArray<ControlEvent>): void {
  for (const event of events)
    log.publish({ topic: CONFIG_TOPIC, key: controlEventKey(event), value: encodeControlEvent(event) });
}

/** What a command printed and returned. */
export interface CommandRun {
  readonly code: number | undefined;
  readonly stdout: string[];
  readonly stderr: string[];
}

/** Runs `tollgate <argv>` in this process with the environment of `settings`. */
export async function runCommand(
  settings: EngineSettings,
  argv: ReadonlyArray<string>,
  signal?: AbortSignal,
  onLine?: (line: string) => void,
): Promise<CommandRun> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io = {
    env: engineEnvironment(settings),
    stdout: (line: string) => {
      stdout.push(line);
      onLine?.(line);
    },
    stderr: (line: string) => void stderr.push(line),
    ...(signal ? { signal } : {}),
  };
  const code = await runOpsCommand(argv, io);
  return { code, stdout, stderr };
}

/** Consumer groups whose id starts with `prefix` (before the topic prefix): offsets folders of the file log, or Kafka groups. */
export async function leftoverGroups(settings: EngineSettings, prefix: string): Promise<string[]> {
  const stored = `${settings.topicPrefix ?? ''}${prefix}`;
  if (!settings.kafkaBrokers)
    return (await readdir(join(settings.dataDir, 'offsets')).catch(() => [])).filter((name) => name.startsWith(stored));
  const admin = new Kafka({ brokers: [...settings.kafkaBrokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return (await admin.listGroups()).groups.map((group) => group.groupId).filter((id) => id.startsWith(stored));
  } finally {
    await admin.disconnect();
  }
}
