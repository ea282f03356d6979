/**
 * Audit page (`#/audit`, admin): the history of config events (who changed what, when), newest
 * first, filtered by event type and actor, paginated. Changes are shown as compact `k=v` text.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatChanges, formatTime } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { PAGE_SIZE, Pagination } from '../components/pagination.js';

/** The config event types (schemas/control-plane/control-plane-events.ts). */
export const AUDIT_TYPES = [
  'UserCreated',
  'UserUpdated',
  'KeyCreated',
  'KeyUpdated',
  'KeyRevoked',
  'ChannelUpserted',
  'ChannelRemoved',
  'PriceSet',
];

/** The audit page. */
export function AuditPage() {
  const [type, setType] = useState('');
  const [actorDraft, setActorDraft] = useState('');
  const [actor, setActor] = useState('');
  const [offset, setOffset] = useState(0);
  const [applied, setApplied] = useState(0);
  const list = useApiData(
    () => api.get('/audit', { type, actor, offset, limit: PAGE_SIZE }),
    [type, actor, offset, applied],
  );
  const events = list.data?.events ?? [];
  const applyActor = (event) => {
    event.preventDefault();
    setActor(actorDraft.trim());
    setOffset(0);
    // Apply always reloads, even with the same filters.
    setApplied((n) => n + 1);
  };
  return html`
    <section>
      <div class="page-head"><h2>Audit log</h2><small class="muted">config changes, newest first</small></div>
      <form class="filters" onSubmit=${applyActor}>
        <select aria-label="Event type" data-testid="audit-filter-type" value=${type} onChange=${(e) => {
          setType(e.currentTarget.value);
          setOffset(0);
        }}>
          <option value="">Any type</option>
          ${AUDIT_TYPES.map((t) => html`<option value=${t}>${t}</option>`)}
        </select>
        <input aria-label="Actor" placeholder="Actor (user id, admin, cli, config-file)" data-testid="audit-filter-actor" value=${actorDraft} onInput=${(e) => setActorDraft(e.currentTarget.value)} />
        <button type="submit" data-testid="audit-apply">Apply</button>
      </form>
      ${list.error ? html`<p class="form-error" role="alert" data-testid="page-error">${list.error.message}</p>` : null}
      <figure class="table-wrap">
        <table class="dense striped" data-testid="audit-table">
          <thead><tr><th>Time</th><th>Actor</th><th>Type</th><th>Entity</th><th>Changes</th></tr></thead>
          <tbody>
            ${events.map(
              (e) => html`<tr key=${e.eventId} data-testid=${`audit-row-${e.eventId}`}>
                <td class="nowrap">${formatTime(e.occurredAt)}</td>
                <td>${e.actorName ?? e.actor}${e.actorName && e.actorName !== e.actor ? html`<br /><small class="muted">${e.actor}</small>` : null}</td>
                <td><code>${e.type}</code></td>
                <td><code>${e.entityId}</code></td>
                <td class="changes">${formatChanges(e.changes)}</td>
              </tr>`,
            )}
            ${events.length === 0 ? html`<tr><td colspan="5" class="empty" data-testid="audit-empty">${list.loading ? 'Loading…' : 'No events match.'}</td></tr>` : null}
          </tbody>
        </table>
      </figure>
      <${Pagination} offset=${offset} limit=${PAGE_SIZE} total=${list.data?.total ?? 0} onChange=${setOffset} />
    </section>
  `;
}
