/**
 * Spend dashboard (`#/spend`): totals (requests, tokens, cost, share of estimated usage) and four
 * charts over the last 7, 30 or 90 days (`GET /spend`), then spend by team (per day and top
 * teams, as charts), by tag and by end user (tables) from `GET /spend/attribution`. Users see
 * their own spend, or with the team picker a team of theirs; admins everything, or one team.
 */
import { html, useMemo, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatPercent, formatTokens, formatUsd } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { ChartCanvas } from '../components/chart-canvas.js';
import { ListTable } from '../components/list-page-parts.js';
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
  const [teamId, setTeamId] = useState('');
  const teams = useApiData(() => api.get('/teams', { limit: 200 }), []);
  const query = useMemo(() => ({ ...range, teamId }), [range, teamId]);
  const spend = useApiData(() => api.get('/spend', query), [query]);
  const attribution = useApiData(() => api.get('/spend/attribution', query), [query]);
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
        ${
          teams.data?.teams?.length
            ? html`<select aria-label="Team" data-testid="spend-team" class="team-picker" value=${teamId} onChange=${(e) => setTeamId(e.currentTarget.value)}>
              <option value="">${teams.data.teams.some((t) => t.access === 'admin') ? 'Every team and key' : 'Your own keys'}</option>
              ${teams.data.teams.map((t) => html`<option value=${t.teamId}>Team ${t.name}</option>`)}
            </select>`
            : null
        }
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
      <${AttributionSpend} attribution=${attribution} labels=${labels} />
    </section>
  `;
}

/** The attribution tables' rows: name, cost, requests, tokens. */
function AttributionTable({ name, title, rows, testid }) {
  return html`
    <article class="chart-card">
      <header><strong>${title}</strong></header>
      <${ListTable} name=${name} columns=${4} loading=${false} empty="No spend in this range."
        head=${html`<tr><th>${title.replace(/^By /, '')}</th><th class="num">Cost</th><th class="num">Requests</th><th class="num">Tokens</th></tr>`}
        rows=${rows.map(
          (r) => html`<tr key=${r.label} data-testid=${`${testid}-${r.label}`}>
            <td>${r.href ? html`<a href=${r.href}>${r.label}</a>` : html`<code>${r.label}</code>`}</td>
            <td class="num">${formatUsd(r.costUsd)}</td>
            <td class="num">${formatTokens(r.requests)}</td>
            <td class="num">${formatTokens(r.tokens)}</td>
          </tr>`,
        )}
      />
    </article>
  `;
}

/** Spend by team (charts and table), by tag and by end user (tables), from `GET /spend/attribution`. */
function AttributionSpend({ attribution, labels }) {
  const data = attribution.data;
  const configs = useMemo(() => {
    if (!data) return null;
    return {
      daily: dailySpendConfig(
        data.dailyByTeam.map((r) => ({ day: r.day, model: r.name, costUsd: r.costUsd })),
        labels,
      ),
      top: topKeysConfig(
        data.byTeam.map((t) => ({ keyId: t.teamId, name: t.name, costUsd: t.costUsd, requests: t.requests })),
      ),
    };
  }, [data, labels]);
  return html`
    <section data-testid="spend-attribution">
      <div class="page-head"><h3>Spend by team, tag and end user</h3></div>
      ${attribution.error ? html`<p class="form-error" role="alert" data-testid="attribution-error">${attribution.error.message}</p>` : null}
      ${
        configs
          ? html`
            <div class="charts">
              <${ChartCanvas} title="Spend per day by team" testid="spend-chart-team-daily" config=${configs.daily} empty=${!data.dailyByTeam.length} />
              <${ChartCanvas} title="Teams by spend" testid="spend-chart-teams" config=${configs.top} empty=${!data.byTeam.length} />
            </div>
            <div class="charts attribution-tables">
              <${AttributionTable} name="spend-teams" title="By team" testid="spend-team"
                rows=${data.byTeam.map((t) => ({ ...t, label: t.name, href: `#/teams/${encodeURIComponent(t.teamId)}` }))} />
              <${AttributionTable} name="spend-tags" title="By tag" testid="spend-tag" rows=${data.byTag.map((t) => ({ ...t, label: t.tag }))} />
              <${AttributionTable} name="spend-end-users" title="By end user" testid="spend-end-user"
                rows=${data.byEndUser.map((u) => ({ ...u, label: u.endUserId }))} />
            </div>
            <p class="muted"><small>A request with several tags counts in full under each of them.</small></p>`
          : html`<p aria-busy=${attribution.loading ? 'true' : undefined}>${attribution.loading ? 'Loading…' : ''}</p>`
      }
    </section>
  `;
}
