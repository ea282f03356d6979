import { describe, expect, it } from 'vitest';
import { projectBillingLine } from '../../../../consumers/billing/project-billing-line.ts';
import { buildPriceBook } from '../../../../schemas/billing/price-book.ts';
import { PRICED_CASES, PRICES } from './priced-cases.ts';
import { usageRecorded } from './traffic-event-builders.ts';

describe('projectBillingLine', () => {
  it.each(PRICED_CASES)('$name: costs the usage exactly and records the price used', (c) => {
    const event = usageRecorded({
      upstreamModel: c.upstreamModel,
      channelId: c.channelId,
      occurredAt: c.occurredAt,
      ...c.usage,
    });
    const { line, costNanoUsd, warning } = projectBillingLine(event, PRICES);
    expect(costNanoUsd).toBe(c.costNano);
    expect(line.cost_usd.nanoUnits).toBe(c.costNano);
    if (c.price === null) {
      expect(line).toMatchObject({ priced: 0, price_model: '', price_channel: '', price_effective_from_ms: 0 });
      expect(line.input_per_mtok.nanoUnits).toBe(0n);
      expect(warning).toBe(`no price for model "${c.upstreamModel}" on channel "${c.channelId}"`);
      return;
    }
    expect(warning).toBeNull();
    expect(line).toMatchObject({
      priced: 1,
      price_model: c.upstreamModel,
      price_channel: c.price.channel,
      price_effective_from_ms: c.price.effectiveFromMs,
    });
    expect(
      [line.input_per_mtok, line.output_per_mtok, line.cache_read_per_mtok, line.cache_write_per_mtok].map(
        (d) => d.nanoUnits,
      ),
    ).toEqual([c.price.inputNano, c.price.outputNano, c.price.cacheReadNano, c.price.cacheWriteNano]);
  });

  it('maps every field, with the UTC day and seconds of occurredAt', () => {
    const event = usageRecorded({
      eventId: 'use-x',
      requestId: 'req-x',
      occurredAt: Date.UTC(2025, 11, 31, 23, 59, 59, 999),
      keyId: 'key-9',
      userId: null,
      teamId: 'team_0123456789abcdef',
      endUserId: 'end-user-7',
      tags: ['feature=search'],
      model: 'gpt-client',
      upstreamModel: 'priced-model',
      channelId: 'ch-a',
      provider: 'openai',
      inputTokens: 1000,
      cachedInputTokens: 10,
      cacheWriteTokens: 20,
      outputTokens: 500,
      reasoningTokens: 7,
      usageSource: 'partial',
    });
    const { line } = projectBillingLine(event, PRICES);
    expect({
      ...line,
      cost_usd: line.cost_usd.toString(),
      input_per_mtok: line.input_per_mtok.toString(),
    }).toMatchObject({
      event_id: 'use-x',
      request_id: 'req-x',
      occurred_at: Date.UTC(2025, 11, 31, 23, 59, 59) / 1000,
      occurred_at_ms: Date.UTC(2025, 11, 31, 23, 59, 59, 999),
      day: '2025-12-31',
      key_id: 'key-9',
      user_id: '',
      team_id: 'team_0123456789abcdef',
      end_user_id: 'end-user-7',
      tags: ['feature=search'],
      model: 'gpt-client',
      upstream_model: 'priced-model',
      channel_id: 'ch-a',
      provider: 'openai',
      input_tokens: 1000,
      cached_input_tokens: 10,
      cache_write_tokens: 20,
      output_tokens: 500,
      reasoning_tokens: 7,
      usage_source: 'partial',
      // 970 × 3 + 10 × 3 + 20 × 3 + 500 × 15 = 10 500 → 0.0105 USD
      cost_usd: '0.010500000',
      input_per_mtok: '3.000000000',
    });
  });

  it('writes no team, no end user and no tags for an event without them', () => {
    const { line } = projectBillingLine(usageRecorded({ teamId: null, endUserId: null, tags: [] }), PRICES);
    expect(line).toMatchObject({ team_id: '', end_user_id: '', tags: [] });
  });

  it("bills an embedding's input tokens at the input price, output 0, and writes its operation", () => {
    // priced-model costs 3 USD per million input tokens: 12 345 tokens cost 37 035 000 nano-USD.
    const event = usageRecorded({
      operation: 'embedding',
      inputTokens: 12_345,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      usageSource: 'estimated',
    });
    const { line, costNanoUsd } = projectBillingLine(event, PRICES);
    expect(costNanoUsd).toBe(37_035_000n);
    expect(line).toMatchObject({ operation: 'embedding', input_tokens: 12_345, output_tokens: 0, priced: 1 });
  });

  it('bills 5-minute and 1-hour cache writes at their own prices and records the savings of the reads', () => {
    // Anthropic's Claude Sonnet 4.5 list prices, USD per million tokens.
    const claude = buildPriceBook([
      {
        model: 'claude-sonnet-4-5',
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        cacheWritePerMTok: 3.75,
        cacheWrite1hPerMTok: 6,
        effectiveFrom: '1970-01-01T00:00:00Z',
      },
    ]);
    const event = usageRecorded({
      upstreamModel: 'claude-sonnet-4-5',
      inputTokens: 7299,
      cachedInputTokens: 2048,
      cacheWriteTokens: 5230,
      cacheWrite1hTokens: 4096,
      outputTokens: 15,
      reasoningTokens: 0,
    });
    const { line, costNanoUsd } = projectBillingLine(event, claude);
    // 21 × 3 + 2048 × 0.3 + 1134 × 3.75 + 4096 × 6 + 15 × 15 = 29 730.9 µUSD
    expect(costNanoUsd).toBe(29_730_900n);
    expect(line.cache_write_1h_tokens).toBe(4096);
    expect(line.cache_write_1h_per_mtok.toString()).toBe('6.000000000');
    expect(line.cache_write_per_mtok.toString()).toBe('3.750000000');
    // 2048 × (3 − 0.3) = 5 529.6 µUSD
    expect(line.cache_savings_usd.toString()).toBe('0.005529600');
  });

  it('records no savings and no 1-hour writes for an unpriced request or one without cache reads', () => {
    const unpriced = projectBillingLine(
      usageRecorded({ upstreamModel: 'unpriced-model', cachedInputTokens: 100 }),
      PRICES,
    );
    expect(unpriced.line.cache_savings_usd.nanoUnits).toBe(0n);
    expect(unpriced.line.cache_write_1h_per_mtok.nanoUnits).toBe(0n);
    const noReads = projectBillingLine(usageRecorded({ cachedInputTokens: 0 }), PRICES);
    expect(noReads.line.cache_savings_usd.nanoUnits).toBe(0n);
    expect(noReads.line.cache_write_1h_tokens).toBe(0);
  });

  it('writes generation as the operation of an event that names none', () => {
    expect(projectBillingLine(usageRecorded(), PRICES).line.operation).toBe('generation');
  });

  it('gives no warning for an unpriced request that used no tokens', () => {
    const event = usageRecorded({ upstreamModel: 'unpriced-model', inputTokens: 0, outputTokens: 0 });
    expect(projectBillingLine(event, PRICES)).toMatchObject({ costNanoUsd: 0n, warning: null });
  });
});
