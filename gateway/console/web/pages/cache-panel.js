/**
 * The usage page's "Cache" panel: prompt-cache hit rate (cached ÷ input tokens) and the money the
 * cache reads saved against the input price, in total and per channel, upstream model, key and
 * team, over whole UTC days of the usage filters' range (`GET /spend/cache`; default: the last 30
 * days). Users see their own keys and their teams.
 */
import { html } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatPercent, formatTokens, formatUsd, fromLocalInput } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { ListTable } from '../components/list-page-parts.js';

const BREAKDOWNS = [
  { field: 'byChannel', title: 'By channel', name: 'cache-channels', label: (r) => r.channelId },
  { field: 'byModel', title: 'By model', name: 'cache-models', label: (r) => r.upstreamModel },
  { field: 'byKey', title: 'By key', name: 'cache-keys', label: (r) => r.name },
  { field: 'byTeam', title: 'By team', name: 'cache-teams', label: (r) => (r.teamId === '' ? 'no team' : r.name) },
];

/** One breakdown table: group, hit rate, cached / input tokens, 1-hour writes, savings, cost. */
function CacheTable({ name, title, rows, label }) {
  return html`
    <article class="chart-card">
      <header><strong>${title}</strong></header>
      <${ListTable} name=${name} columns=${6} loading=${false} empty="No cached traffic in this range."
        head=${html`<tr><th>${title.replace(/^By /, '')}</th><th class="num">Hit rate</th><th class="num">Cached / input</th><th class="num">Writes (1h)</th><th class="num">Saved</th><th class="num">Cost</th></tr>`}
        rows=${rows.map(
          (r) => html`<tr key=${label(r)} data-testid=${`${name}-row-${label(r)}`}>
            <td><code>${label(r)}</code></td>
            <td class="num" data-testid=${`${name}-hit-rate-${label(r)}`}>${formatPercent(r.hitRate)}</td>
            <td class="num">${formatTokens(r.cachedInputTokens)} / ${formatTokens(r.inputTokens)}</td>
            <td class="num">${formatTokens(r.cacheWriteTokens)} (${formatTokens(r.cacheWrite1hTokens)})</td>
            <td class="num" data-testid=${`${name}-savings-${label(r)}`}>${formatUsd(r.savingsUsd)}</td>
            <td class="num">${formatUsd(r.costUsd)}</td>
          </tr>`,
        )}
      />
    </article>
  `;
}

/**
 * The panel over the usage page's applied filters (`filters.from`/`to`: datetime-local values,
 * blank = the API's default range); it reloads whenever they are applied, as the log does.
 */
export function CachePanel({ filters }) {
  const cache = useApiData(
    () =>
      api.get('/spend/cache', {
        from: fromLocalInput(filters.from) ?? undefined,
        to: fromLocalInput(filters.to) ?? undefined,
      }),
    [filters],
  );
  const data = cache.data;
  return html`
    <section data-testid="cache-panel">
      <div class="page-head"><h3>Cache</h3><small class="muted">prompt-cache hit rate and savings, whole UTC days; default: the last 30 days</small></div>
      ${cache.error ? html`<p class="form-error" role="alert" data-testid="cache-error">${cache.error.message}</p>` : null}
      ${
        data
          ? html`
            <p data-testid="cache-totals">
              Hit rate <strong data-testid="cache-hit-rate">${formatPercent(data.totals.hitRate)}</strong>
              (${formatTokens(data.totals.cachedInputTokens)} of ${formatTokens(data.totals.inputTokens)} input tokens read from the cache),
              saved <strong data-testid="cache-savings">${formatUsd(data.totals.savingsUsd)}</strong>
              on ${formatUsd(data.totals.costUsd)} billed; ${formatTokens(data.totals.cacheWriteTokens)} tokens written
              (${formatTokens(data.totals.cacheWrite1hTokens)} for 1 hour).
            </p>
            <div class="charts attribution-tables">
              ${BREAKDOWNS.map((b) => html`<${CacheTable} key=${b.name} name=${b.name} title=${b.title} rows=${data[b.field]} label=${b.label} />`)}
            </div>`
          : html`<p aria-busy=${cache.loading ? 'true' : undefined}>${cache.loading ? 'Loading…' : ''}</p>`
      }
    </section>
  `;
}
