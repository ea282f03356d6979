/**
 * Builders for the traffic events the ledger and billing consumers read, with plausible defaults
 * that a test overrides field by field.
 */
import type { RequestCompleted, TokenUsage, UsageRecorded } from '../../../../schemas/events/traffic-events.ts';

let sequence = 0;

/** A unique id with a prefix, unique within the test process (e.g. `evt-17`). */
export function nextId(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence}`;
}

/** Usage: 100 input, 20 output tokens, reported. */
export function usage(overrides: Partial<TokenUsage> = {}): TokenUsage {
  return {
    inputTokens: 100,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 20,
    reasoningTokens: 0,
    usageSource: 'reported',
    ...overrides,
  };
}

/** A completed, non-streamed request served by channel `ch-a` (model `priced-model`). */
export function requestCompleted(overrides: Partial<RequestCompleted> = {}): RequestCompleted {
  const requestId = overrides.requestId ?? nextId('req');
  return {
    eventId: nextId('evt'),
    occurredAt: Date.UTC(2025, 5, 15, 12, 0, 0, 123),
    requestId,
    keyId: 'key-1',
    userId: 'user-1',
    clientFormat: 'openai-chat',
    model: 'client-model',
    channelId: 'ch-a',
    provider: 'openai',
    upstreamModel: 'priced-model',
    stream: false,
    passThrough: false,
    status: 'completed',
    httpStatus: 200,
    errorKind: null,
    latencyMs: 420,
    ttfbMs: 180,
    attempts: 1,
    usage: usage(),
    priceRevision: null,
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
    ...overrides,
  };
}

/** The usage event of a request served by channel `ch-a` (model `priced-model`). */
export function usageRecorded(overrides: Partial<UsageRecorded> = {}): UsageRecorded {
  return {
    eventId: nextId('use'),
    occurredAt: Date.UTC(2025, 5, 15, 12, 0, 0, 123),
    requestId: nextId('req'),
    keyId: 'key-1',
    userId: 'user-1',
    model: 'client-model',
    upstreamModel: 'priced-model',
    channelId: 'ch-a',
    provider: 'openai',
    ...usage(),
    priceRevision: null,
    teamId: null,
    endUserId: null,
    tags: [],
    budgetCounters: [],
    operation: 'generation',
    cacheWrite1hTokens: 0,
    ...overrides,
  };
}
