/**
 * The wire form of a budget alert: Standard Webhooks headers verified with the reference library
 * (standardwebhooks' Webhook.verify), the JSON payload, the Slack text, exact USD decimals.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  alertSentence,
  alertWebhookBody,
  nanoUsdToUsd,
  signedAlertRequest,
  webhookMessageId,
  webhookSignature,
} from '../../../../consumers/alerts/alert-webhook-message.ts';
import type { BudgetThresholdCrossed } from '../../../../schemas/events/traffic-events.ts';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const WINDOW_START = Date.UTC(2026, 0, 5);

const alert: BudgetThresholdCrossed = {
  eventId: `bgt_00000000000000aa@${WINDOW_START}:80`,
  occurredAt: WINDOW_START + 3_600_000,
  budgetId: 'bgt_00000000000000aa',
  budgetName: 'Search team daily',
  scope: 'team',
  scopeId: 'team_search',
  windowStartMs: WINDOW_START,
  windowEndMs: WINDOW_START + 86_400_000,
  thresholdPercent: 80,
  limitNanoUsd: '10000000000',
  limitTokens: null,
  spentNanoUsd: '8012500000',
  spentTokens: 412_000,
};

describe('signature', () => {
  it('is the Standard Webhooks v1 signature: the reference library verifies it', () => {
    const now = Date.now();
    const request = signedAlertRequest(alert, { webhookId: 'whk_00000000000000bb', format: 'json' }, SECRET, now);
    expect(request.headers['webhook-id']).toBe(`${alert.eventId}:whk_00000000000000bb`);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(now / 1000)));
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(SECRET).verify(request.body, request.headers);
    expect(verified).toEqual(JSON.parse(request.body));
    const reference = new Webhook(SECRET).sign(
      request.headers['webhook-id']!,
      new Date(Math.floor(now / 1000) * 1000),
      request.body,
    );
    expect(request.headers['webhook-signature']).toBe(reference);
  });

  it('fails verification under another secret, another body or another id', () => {
    const request = signedAlertRequest(alert, { webhookId: 'whk_1', format: 'json' }, SECRET, Date.now());
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => new Webhook(other).verify(request.body, request.headers)).toThrow();
    expect(() => new Webhook(SECRET).verify(request.body.replace('80', '81'), request.headers)).toThrow();
    expect(() => new Webhook(SECRET).verify(request.body, { ...request.headers, 'webhook-id': 'another' })).toThrow();
  });

  it('signs a Slack message too, and an id stays the same across attempts', () => {
    const first = signedAlertRequest(alert, { webhookId: 'whk_1', format: 'slack' }, SECRET, Date.now());
    const later = signedAlertRequest(alert, { webhookId: 'whk_1', format: 'slack' }, SECRET, Date.now() + 60_000);
    expect(new Webhook(SECRET).verify(first.body, first.headers)).toEqual(JSON.parse(first.body));
    expect(later.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(later.headers['webhook-timestamp']).not.toBe(first.headers['webhook-timestamp']);
    expect(webhookMessageId('a@1:50', 'whk_1')).toBe('a@1:50:whk_1');
  });

  it('refuses a secret that is not base64 without quoting it', () => {
    expect(() => webhookSignature('whsec_not base64!', 'id', 1, '{}')).toThrow(/^webhook secret is not base64/);
    expect(() => webhookSignature('whsec_not base64!', 'id', 1, '{}')).not.toThrow(/not base64!/);
  });
});

describe('payloads', () => {
  it('json: { type, timestamp, data } with times in ISO 8601 and USD as exact decimals', () => {
    expect(JSON.parse(alertWebhookBody(alert, 'json'))).toEqual({
      type: 'budget.threshold_crossed',
      timestamp: '2026-01-05T01:00:00.000Z',
      data: {
        alertId: alert.eventId,
        budgetId: 'bgt_00000000000000aa',
        budgetName: 'Search team daily',
        scope: 'team',
        scopeId: 'team_search',
        thresholdPercent: 80,
        windowStart: '2026-01-05T00:00:00.000Z',
        windowEnd: '2026-01-06T00:00:00.000Z',
        windowStartMs: WINDOW_START,
        windowEndMs: WINDOW_START + 86_400_000,
        limitUsd: '10',
        limitTokens: null,
        spentUsd: '8.0125',
        spentTokens: 412_000,
      },
    });
  });

  it('slack: { text } with one sentence naming the budget, the threshold, the limits and the window', () => {
    expect(JSON.parse(alertWebhookBody(alert, 'slack'))).toEqual({
      text:
        'Budget "Search team daily" (team team_search) reached 80% of its limit of $10: $8.0125 and 412000 tokens ' +
        'spent in the window from 2026-01-05T00:00:00.000Z to 2026-01-06T00:00:00.000Z.',
    });
    const lifetime = { ...alert, windowStartMs: 0, windowEndMs: null, limitNanoUsd: null, limitTokens: 1000 };
    expect(alertSentence(lifetime)).toBe(
      'Budget "Search team daily" (team team_search) reached 80% of its limit of 1000 tokens: $8.0125 and 412000 tokens spent over its lifetime.',
    );
  });

  it('writes nano-USD as exact USD decimals', () => {
    expect(nanoUsdToUsd('0')).toBe('0');
    expect(nanoUsdToUsd('1')).toBe('0.000000001');
    expect(nanoUsdToUsd('1234500000')).toBe('1.2345');
    expect(nanoUsdToUsd('10000000000')).toBe('10');
    expect(nanoUsdToUsd('9223372036854775807')).toBe('9223372036.854775807');
  });
});
