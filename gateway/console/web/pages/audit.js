/**
 * Audit page (`#/audit`, admin): the history of config events (who changed what, when), newest
 * first, filtered by event type and actor, paginated. Changes are shown as compact `k=v` text.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { formatChanges, formatTime } from '../format.js';
import { useApiData } from '../components/use-api-data.js';
import { PAGE_SIZE } from '../components/pagination.js';
import { FilterSelect, ListPagination, ListTable, PageError } from '../components/list-page-parts.js';

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
  const chooseType = (value) => {
    setType(value);
    setOffset(0);
  };
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
        <${FilterSelect} label="Event type" testid="audit-filter-type" value=${type} any="Any type" choices=${AUDIT_TYPES} onChange=${chooseType} />
        <input aria-label="Actor" placeholder="Actor (user id, admin, cli, config-file)" data-testid="audit-filter-actor" value=${actorDraft} onInput=${(e) => setActorDraft(e.currentTarget.value)} />
        <button type="submit" data-testid="audit-apply">Apply</button>
      </form>
      <${PageError} error=${list.error} />
      <${ListTable} name="audit" columns=${5} loading=${list.loading} empty="No events match."
        head=${html`<tr><th>Time</th><th>Actor</th><th>Type</th><th>Entity</th><th>Changes</th></tr>`}
        rows=${events.map(
          (e) => html`<tr key=${e.eventId} data-testid=${`audit-row-${e.eventId}`}>
            <td class="nowrap">${formatTime(e.occurredAt)}</td>
            <td>${e.actorName ?? e.actor}${e.actorName && e.actorName !== e.actor ? html`<br /><small class="muted">${e.actor}</small>` : null}</td>
            <td><code>${e.type}</code></td>
            <td><code>${e.entityId}</code></td>
            <td class="changes">${formatChanges(e.changes)}</td>
          </tr>`,
        )}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
    </section>
  `;
}
