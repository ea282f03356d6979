/**
 * Request detail (`#/usage/<requestId>`): every field of the consumption-log row and of its
 * billing line (`GET /usage/:requestId`).
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { formatMs, formatTime, formatTokens, formatUsd } from '../format.js';
import { routeHash } from '../router.js';
import { useApiData } from '../components/use-api-data.js';

const TIME_FIELD = /(occurred|created|updated|revoked|expires|used)_?at(_ms)?$|effective_?from(_ms)?$/;
const DURATION_FIELD = /(latency|ttfb|timeout)_?ms$/;

/**
 * How one field is shown, chosen by its name (camelCase or snake_case): times (ISO strings, ms,
 * or seconds when below 1e11), `*PerMTok` prices, `*Usd`/`cost*` money, `*Tokens` counts,
 * latency/ttfb durations (ms); others as text; null → `—`.
 */
export function formatField(name, value) {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'object') return JSON.stringify(value);
  const lower = name.toLowerCase();
  if (TIME_FIELD.test(lower)) return formatTime(typeof value === 'number' && value < 1e11 ? value * 1000 : value);
  if (/per_?mtok/.test(lower)) return `$${value} / 1M tokens`;
  if (/usd|cost/.test(lower)) return formatUsd(value);
  if (/tokens/.test(lower)) return formatTokens(value);
  if (DURATION_FIELD.test(lower)) return formatMs(value);
  return String(value);
}

function FieldTable({ record, prefix }) {
  return html`
    <table class="dense detail">
      <tbody>
        ${Object.entries(record).map(
          ([name, value]) => html`<tr key=${name}>
            <th scope="row">${name}</th>
            <td data-testid=${`${prefix}-field-${name}`} title=${value === null || typeof value === 'object' ? undefined : String(value)}>${formatField(name, value)}</td>
          </tr>`,
        )}
      </tbody>
    </table>
  `;
}

/** @param {{ requestId: string }} props */
export function UsageDetailPage({ requestId }) {
  const detail = useApiData(() => api.get(`/usage/${seg(requestId)}`), [requestId]);
  return html`
    <section data-testid="usage-detail">
      <div class="page-head">
        <h2>Request <code>${requestId}</code></h2>
        <a href=${routeHash('usage')} role="button" class="secondary outline small" data-testid="usage-detail-back">Back to usage</a>
      </div>
      ${detail.error ? html`<p class="form-error" role="alert" data-testid="page-error">${detail.error.message}</p>` : null}
      ${detail.loading && !detail.data ? html`<p aria-busy="true">Loading…</p>` : null}
      ${
        detail.data
          ? html`<div class="grid detail-grid">
            <article>
              <header><strong>Request</strong></header>
              <${FieldTable} record=${detail.data.row} prefix="usage" />
            </article>
            <article>
              <header><strong>Billing line</strong></header>
              ${
                detail.data.billing
                  ? html`<${FieldTable} record=${detail.data.billing} prefix="billing" />`
                  : html`<p class="muted" data-testid="usage-billing-none">No billing line for this request (not billed yet, or it failed before usage).</p>`
              }
            </article>
          </div>`
          : null
      }
    </section>
  `;
}
