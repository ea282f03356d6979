/**
 * Usage page (`#/usage`): the consumption log with filters (key, user for admins, model,
 * channel, status, time range), pagination, and a click-through to one request's detail; below it
 * the "Cache" panel (cache-panel.js) over the filters' time range.
 * The filters survive a visit to the detail page (kept in this module).
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatMs, formatTime, formatTokens, formatUsd, fromLocalInput } from '../format.js';
import { useSession } from '../session-context.js';
import { navigate } from '../router.js';
import { useApiData } from '../components/use-api-data.js';
import { PAGE_SIZE } from '../components/pagination.js';
import { ListPagination, ListTable, PageError } from '../components/list-page-parts.js';
import { StatusBadge } from '../components/status-badge.js';
import { CachePanel } from './cache-panel.js';

const STATUSES = ['completed', 'failed', 'cancelled'];
const EMPTY_FILTERS = { keyId: '', userId: '', model: '', channelId: '', status: '', from: '', to: '' };

let remembered = { filters: EMPTY_FILTERS, offset: 0 };

/** Drops the remembered filters (on sign-in, so one user's filters never leak to the next). */
export function forgetUsageFilters() {
  remembered = { filters: EMPTY_FILTERS, offset: 0 };
}

/** The API query of the filters: datetime-local values → ISO-8601, blanks left out. */
export function usageQuery(filters, offset) {
  return {
    keyId: filters.keyId,
    userId: filters.userId,
    model: filters.model.trim(),
    channelId: filters.channelId.trim(),
    status: filters.status,
    from: fromLocalInput(filters.from) ?? undefined,
    to: fromLocalInput(filters.to) ?? undefined,
    offset,
    limit: PAGE_SIZE,
  };
}

/** The usage page. */
export function UsagePage() {
  const { isAdmin } = useSession();
  const [applied, setApplied] = useState(remembered.filters);
  const [draft, setDraft] = useState(remembered.filters);
  const [offset, setOffsetState] = useState(remembered.offset);
  const keys = useApiData(() => api.get('/keys', { limit: 200 }), []);
  const users = useApiData(() => (isAdmin ? api.get('/users', { limit: 200 }) : Promise.resolve(null)), [isAdmin]);
  const list = useApiData(() => api.get('/usage', usageQuery(applied, offset)), [applied, offset]);
  const setOffset = (next) => {
    remembered = { filters: applied, offset: next };
    setOffsetState(next);
  };
  const apply = (filters) => {
    remembered = { filters, offset: 0 };
    // A new object even for unchanged filters: Apply always reloads (new requests keep arriving).
    setApplied({ ...filters });
    setOffsetState(0);
  };
  const keyNames = new Map((keys.data?.keys ?? []).map((k) => [k.keyId, k.name]));
  const rows = list.data?.rows ?? [];
  return html`
    <section>
      <div class="page-head"><h2>Usage</h2><small class="muted">newest first; default range: the last 24 h</small></div>
      <${UsageFilters} draft=${draft} setDraft=${setDraft} keys=${keys.data?.keys ?? []} users=${users.data?.users ?? null}
        onApply=${() => apply(draft)} onReset=${() => {
          setDraft(EMPTY_FILTERS);
          apply(EMPTY_FILTERS);
        }} />
      <${PageError} error=${list.error} />
      <${ListTable} name="usage" columns=${9} loading=${list.loading} empty="No requests in this range." clickable
        head=${html`<tr><th>Time</th><th>Key</th><th>Model</th><th>Channel</th><th>Status</th><th class="num">Tokens in / out</th><th class="num">Cost</th><th class="num">Latency</th><th>Usage</th></tr>`}
        rows=${rows.map((row) => html`<${UsageRow} key=${row.eventId ?? row.requestId} row=${row} keyName=${keyNames.get(row.keyId)} />`)}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      <${CachePanel} filters=${applied} />
    </section>
  `;
}

function UsageFilters({ draft, setDraft, keys, users, onApply, onReset }) {
  const bind = (name) => (event) => {
    const value = event.currentTarget.value;
    setDraft((d) => ({ ...d, [name]: value }));
  };
  const submit = (event) => {
    event.preventDefault();
    onApply();
  };
  return html`
    <form class="filters usage-filters" onSubmit=${submit}>
      <select aria-label="Key" data-testid="usage-filter-key" value=${draft.keyId} onChange=${bind('keyId')}>
        <option value="">Any key</option>
        ${keys.map((k) => html`<option value=${k.keyId}>${k.name} (sk-${k.publicId}-…)</option>`)}
      </select>
      ${
        users
          ? html`<select aria-label="User" data-testid="usage-filter-user" value=${draft.userId} onChange=${bind('userId')}>
            <option value="">Any user</option>
            ${users.map((u) => html`<option value=${u.userId}>${u.name}</option>`)}
          </select>`
          : null
      }
      <input aria-label="Model" placeholder="Model" data-testid="usage-filter-model" value=${draft.model} onInput=${bind('model')} />
      <input aria-label="Channel" placeholder="Channel" data-testid="usage-filter-channel" value=${draft.channelId} onInput=${bind('channelId')} />
      <select aria-label="Status" data-testid="usage-filter-status" value=${draft.status} onChange=${bind('status')}>
        <option value="">Any status</option>
        ${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}
      </select>
      <label class="inline">From <input type="datetime-local" data-testid="usage-filter-from" value=${draft.from} onInput=${bind('from')} /></label>
      <label class="inline">To <input type="datetime-local" data-testid="usage-filter-to" value=${draft.to} onInput=${bind('to')} /></label>
      <button type="submit" data-testid="usage-apply">Apply</button>
      <button type="button" class="secondary outline" data-testid="usage-reset" onClick=${onReset}>Reset</button>
    </form>
  `;
}

function UsageRow({ row, keyName }) {
  const open = () => navigate('usage', row.requestId);
  const onKey = (event) => {
    if (event.key === 'Enter') open();
  };
  const upstream = row.upstreamModel && row.upstreamModel !== row.model ? row.upstreamModel : null;
  return html`
    <tr data-testid=${`usage-row-${row.requestId}`} tabindex="0" onClick=${open} onKeyDown=${onKey}>
      <td>${formatTime(row.occurredAt)}</td>
      <td>${keyName ?? html`<code>${row.keyId}</code>`}</td>
      <td>${row.model}${upstream ? html`<br /><small class="muted">→ ${upstream}</small>` : null}</td>
      <td>${row.channelId ?? html`<span class="muted">—</span>`}</td>
      <td>
        <${StatusBadge} status=${row.status} />
        ${row.errorKind ? html`<br /><small class="muted">${row.errorKind}</small>` : null}
      </td>
      <td class="num">${formatTokens(row.inputTokens)} / ${formatTokens(row.outputTokens)}</td>
      <td class="num" data-testid=${`usage-cost-${row.requestId}`}>${formatUsd(row.costUsd)}</td>
      <td class="num">${formatMs(row.latencyMs)}</td>
      <td>${row.usageSource}</td>
    </tr>
  `;
}
