import { describe, expect, it } from 'vitest';
import { projectConsumptionRow } from '../../../../consumers/ledger/project-consumption-row.ts';
import { PRICED_CASES, PRICES } from '../billing/priced-cases.ts';
import { requestCompleted, usage } from '../billing/traffic-event-builders.ts';

const INGESTED_AT = Date.UTC(2025, 5, 15, 12, 0, 1, 250);

describe('projectConsumptionRow', () => {
  it.each(PRICED_CASES)('$name: cost_usd is exact to the nano-dollar', (c) => {
    const event = requestCompleted({
      upstreamModel: c.upstreamModel,
      channelId: c.channelId,
      occurredAt: c.occurredAt,
      usage: c.usage,
    });
    const { row, costNanoUsd, warning } = projectConsumptionRow(event, PRICES, INGESTED_AT);
    expect(costNanoUsd).toBe(c.costNano);
    expect(row.cost_usd.nanoUnits).toBe(c.costNano);
    expect(warning).toBe(
      c.price === null ? `no price for model "${c.upstreamModel}" on channel "${c.channelId}"` : null,
    );
  });

  it('maps every field of a streamed, failed-over request', () => {
    const event = requestCompleted({
      eventId: 'evt-x',
      requestId: 'req-x',
      occurredAt: Date.UTC(2025, 5, 15, 12, 0, 0, 789),
      keyId: 'key-9',
      userId: 'user-9',
      teamId: 'team_0123456789abcdef',
      endUserId: 'end-user-7',
      tags: ['feature=search', 'env=prod'],
      clientFormat: 'anthropic-messages',
      model: 'claude-client',
      channelId: 'ch-b',
      provider: 'anthropic',
      upstreamModel: 'priced-model',
      stream: true,
      passThrough: true,
      status: 'completed',
      httpStatus: 200,
      errorKind: null,
      latencyMs: 1500,
      ttfbMs: 320,
      attempts: 2,
      upstreamRequestId: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      usage: usage({
        inputTokens: 2000,
        cachedInputTokens: 500,
        cacheWriteTokens: 100,
        outputTokens: 40,
        reasoningTokens: 8,
        usageSource: 'estimated',
      }),
    });
    const { row } = projectConsumptionRow(event, PRICES, INGESTED_AT);
    expect({ ...row, cost_usd: row.cost_usd.toString() }).toEqual({
      event_id: 'evt-x',
      request_id: 'req-x',
      occurred_at: Date.UTC(2025, 5, 15, 12, 0, 0) / 1000,
      occurred_at_ms: Date.UTC(2025, 5, 15, 12, 0, 0, 789),
      // no startedAt in the event (as before schema v5): the request started latencyMs before it finished
      day: '2025-06-15',
      started_at_ms: Date.UTC(2025, 5, 15, 11, 59, 59, 289),
      started_at: Date.UTC(2025, 5, 15, 11, 59, 59) / 1000,
      key_id: 'key-9',
      user_id: 'user-9',
      team_id: 'team_0123456789abcdef',
      end_user_id: 'end-user-7',
      tags: ['feature=search', 'env=prod'],
      model: 'claude-client',
      upstream_model: 'priced-model',
      channel_id: 'ch-b',
      provider: 'anthropic',
      client_format: 'anthropic-messages',
      operation: 'generation',
      stream: 1,
      pass_through: 1,
      status: 'completed',
      error_kind: '',
      http_status: 200,
      input_tokens: 2000,
      cached_input_tokens: 500,
      cache_write_tokens: 100,
      output_tokens: 40,
      reasoning_tokens: 8,
      usage_source: 'estimated',
      // ch-b override, no cache prices (they default to input): 2000 × 2.7 + 40 × 13.5 = 5 940 → 0.00594 USD
      cost_usd: '0.005940000',
      latency_ms: 1500,
      ttfb_ms: 320,
      attempts: 2,
      ingested_at_ms: INGESTED_AT,
      upstream_request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      model_chain: [],
      answered_model: '',
      affinity: '',
      credential_id: '',
      credential_rotations: 0,
    });
  });

  it('takes started_at from the event when it has one, and keeps usage source none', () => {
    const occurredAt = Date.UTC(2025, 5, 15, 0, 0, 1, 100);
    const event = requestCompleted({
      occurredAt,
      startedAt: occurredAt - 2_300,
      latencyMs: 2_299,
      status: 'failed',
      channelId: 'dead',
      usage: {
        inputTokens: 0,
        cachedInputTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        usageSource: 'none',
      },
    });
    const { row } = projectConsumptionRow(event, PRICES, INGESTED_AT);
    expect(row).toMatchObject({
      day: '2025-06-15',
      started_at_ms: occurredAt - 2_300,
      started_at: Date.UTC(2025, 5, 14, 23, 59, 58) / 1000,
      usage_source: 'none',
    });
    expect(row.started_at_ms).toBeLessThanOrEqual(row.occurred_at_ms);
  });

  it('writes empty strings and NULL ttfb for a request refused before any channel, without a warning', () => {
    const event = requestCompleted({
      userId: null,
      channelId: null,
      provider: null,
      upstreamModel: null,
      status: 'failed',
      httpStatus: 401,
      errorKind: 'unauthenticated',
      ttfbMs: null,
      attempts: 0,
      usage: usage({ inputTokens: 0, outputTokens: 0 }),
    });
    const { row, costNanoUsd, warning } = projectConsumptionRow(event, PRICES, INGESTED_AT);
    expect(row).toMatchObject({
      user_id: '',
      team_id: '',
      end_user_id: '',
      tags: [],
      channel_id: '',
      provider: '',
      upstream_model: '',
      upstream_request_id: '',
      status: 'failed',
      http_status: 401,
      error_kind: 'unauthenticated',
      ttfb_ms: null,
      attempts: 0,
    });
    expect(costNanoUsd).toBe(0n);
    expect(warning).toBeNull();
  });

  it('warns when a request used tokens but names no upstream model', () => {
    const event = requestCompleted({ upstreamModel: null, usage: usage({ inputTokens: 10, outputTokens: 0 }) });
    expect(projectConsumptionRow(event, PRICES, INGESTED_AT)).toMatchObject({
      costNanoUsd: 0n,
      warning: 'request used tokens but names no upstream model',
    });
  });
});
