/**
 * Spend dashboard (`#/spend`): totals (requests, tokens, cost, share of estimated usage) and four
 * charts over the last 7, 30 or 90 days (`GET /spend`). Users see their own spend only.
 */
import { html, useMemo, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatPercent, formatTokens, formatUsd } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { ChartCanvas } from '../components/chart-canvas.js';
import { dailySpendConfig, dayRange, topKeysConfig, topModelsConfig, trafficConfig } from './spend-charts.js';

/** The ranges offered, in days. */
export const SPEND_RANGES = [7, 30, 90];

/** Share of requests whose usage was estimated (0–1); null when there were none. */
export function estimatedShare(totals) {
  const requests = Number(totals?.requests ?? 0);
  return requests > 0 ? Number(totals.estimatedRequests ?? 0) / requests : null;
}

function TotalCard({ label, value, testid, note }) {
  return html`
    <article class="total-card">
      <small>${label}</small>
      <strong data-testid=${testid}>${value}</strong>
      ${note ? html`<small class="muted">${note}</small>` : null}
    </article>
  `;
}

/** The spend page. */
export function SpendPage() {
  const [days, setDays] = useState(30);
  // Every click on a range button (the current one too) reloads up to now.
  const [clicks, setClicks] = useState(0);
  const range = useMemo(() => {
    const to = new Date();
    return { from: new Date(to.getTime() - days * 86_400_000).toISOString(), to: to.toISOString() };
  }, [days, clicks]);
  const spend = useApiData(() => api.get('/spend', range), [range]);
  const data = spend.data;
  const labels = useMemo(() => dayRange(range.from, range.to), [range]);
  const configs = useMemo(() => {
    if (!data) return null;
    return {
      daily: dailySpendConfig(data.daily ?? [], labels),
      traffic: trafficConfig(data.daily ?? [], labels),
      keys: topKeysConfig(data.topKeys ?? []),
      models: topModelsConfig(data.topModels ?? []),
    };
  }, [data, labels]);
  const totals = data?.totals;
  const sources = (data?.usageSources ?? []).map((s) => `${s.source} ${formatTokens(s.requests)}`).join(' · ');
  return html`
    <section>
      <div class="page-head">
        <h2>Spend</h2>
        <div role="group" class="range-picker">
          ${SPEND_RANGES.map(
            (n) =>
              html`<button type="button" class=${n === days ? '' : 'secondary outline'} aria-pressed=${String(n === days)} data-testid=${`spend-range-${n}`} onClick=${() => {
                setDays(n);
                setClicks((c) => c + 1);
              }}>${n} days</button>`,
          )}
        </div>
      </div>
      ${spend.error ? html`<p class="form-error" role="alert" data-testid="page-error">${spend.error.message}</p>` : null}
      <div class="totals">
        <${TotalCard} label="Requests" testid="spend-total-requests" value=${totals ? formatTokens(totals.requests) : '…'} />
        <${TotalCard} label="Tokens (in / out)" testid="spend-total-tokens"
          value=${totals ? formatTokens(Number(totals.inputTokens) + Number(totals.outputTokens)) : '…'}
          note=${totals ? `${formatTokens(totals.inputTokens)} / ${formatTokens(totals.outputTokens)}` : null} />
        <${TotalCard} label="Cost" testid="spend-total-cost" value=${totals ? formatUsd(totals.costUsd) : '…'} />
        <${TotalCard} label="Estimated usage" testid="spend-total-estimated" value=${totals ? formatPercent(estimatedShare(totals)) : '…'} note=${sources || null} />
      </div>
      ${
        configs
          ? html`<div class="charts">
            <${ChartCanvas} title="Spend per day by model" testid="spend-chart-daily" config=${configs.daily} empty=${!data.daily?.length} />
            <${ChartCanvas} title="Requests and tokens per day" testid="spend-chart-traffic" config=${configs.traffic} empty=${!data.daily?.length} />
            <${ChartCanvas} title="Top keys by spend" testid="spend-chart-keys" config=${configs.keys} empty=${!data.topKeys?.length} />
            <${ChartCanvas} title="Top models by spend" testid="spend-chart-models" config=${configs.models} empty=${!data.topModels?.length} />
          </div>`
          : html`<p aria-busy=${spend.loading ? 'true' : undefined}>${spend.loading ? 'Loading…' : ''}</p>`
      }
    </section>
  `;
}
