/**
 * Keys page (`#/keys`): the key list with search, status filter and pagination; create, edit,
 * rotate and revoke; each key's quota and budgets as bars. Users see their own keys and their
 * teams' (a team's keys are read-only to its members, managed by its team admins); admins also
 * see the owner column.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { useApiData } from '../components/use-api-data.js';
import { BudgetBars, budgetsByScopeId } from '../components/budget-bar.js';
import { formatLimit, formatTime } from '../format.js';
import { useSession } from '../session-context.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { FilterSelect, ListPagination, ListTable, PageError, useListDialog } from '../components/list-page-parts.js';
import { QuotaBar } from '../components/quota-bar.js';
import { StatusBadge } from '../components/status-badge.js';
import { SecretKeyDialog } from '../components/secret-key-dialog.js';
import { KeyFormDialog } from './key-form-dialog.js';
import { RevokeKeyDialog, RotateKeyDialog } from './key-action-dialogs.js';

const STATUSES = ['active', 'disabled', 'revoked', 'expired'];

/** How a key's public id is shown: `sk-<publicId>-…` (the secret part is never known here). */
export function maskedKey(publicId) {
  return `sk-${publicId}-…`;
}

/** The keys page. */
export function KeysPage() {
  const { isAdmin } = useSession();
  const [status, setStatus] = useState('');
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/keys', { status });
  const { dialog, setDialog, close, saved } = useListDialog(list);
  const budgets = useKeyBudgets();
  const chooseStatus = (value) => {
    setStatus(value);
    setOffset(0);
  };
  const minted = (title, apiKey, note) => {
    setDialog({ kind: 'secret', title, apiKey, note });
    list.reload();
  };
  return html`
    <section>
      <div class="page-head">
        <h2>API keys</h2>
        <button type="button" data-testid="key-create" onClick=${() => setDialog({ kind: 'create' })}>Create key</button>
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search name or public id" label="Search keys" testid="key-search" />
        <${FilterSelect} label="Status" testid="key-status-filter" value=${status} any="Any status" choices=${STATUSES} onChange=${chooseStatus} />
      </div>
      <${PageError} error=${list.error} />
      <${KeyTable} keys=${list.data?.keys ?? []} loading=${list.loading && !list.data} isAdmin=${isAdmin} onAction=${setDialog} budgets=${budgets} />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      <${KeyDialogs} dialog=${dialog} close=${close} changed=${saved} minted=${minted} />
    </section>
  `;
}

/** Hook: the budgets on keys the user sees, grouped by key id (`{}` while loading or on failure). */
export function useKeyBudgets() {
  const answer = useApiData(() => api.get('/budgets', { scope: 'key' }), []);
  return budgetsByScopeId(answer.data?.budgets);
}

/**
 * The key dialogs of a key list: create (for `teamId` when given), edit, rotate, revoke, and the
 * new key shown once.
 */
export function KeyDialogs({ dialog, close, changed, minted, teamId }) {
  if (!dialog) return null;
  switch (dialog.kind) {
    case 'create':
      return html`<${KeyFormDialog} teamId=${teamId} onClose=${close} onSaved=${(result) => minted('Your new API key', result.apiKey)} />`;
    case 'edit':
      return html`<${KeyFormDialog} keyRow=${dialog.key} onClose=${close} onSaved=${changed} />`;
    case 'rotate':
      return html`<${RotateKeyDialog} keyRow=${dialog.key} onClose=${close} onRotated=${(result) => minted('Rotated key', result.apiKey, rotationNote(result))} />`;
    case 'revoke':
      return html`<${RevokeKeyDialog} keyRow=${dialog.key} onClose=${close} onRevoked=${changed} />`;
    case 'secret':
      return html`<${SecretKeyDialog} title=${dialog.title} apiKey=${dialog.apiKey} note=${dialog.note} onClose=${close} />`;
    default:
      return null;
  }
}

function rotationNote(result) {
  const at = result.replaced?.revokedAt;
  return at ? `The old key stops working at ${formatTime(at)}.` : undefined;
}

/**
 * The key table. `budgets`: BudgetRows by key id, shown as bars under the quota.
 * @param {{ keys: object[], loading: boolean, isAdmin: boolean, onAction: (action: object) => void, budgets?: Record<string, object[]> }} props
 */
export function KeyTable({ keys, loading, isAdmin, onAction, budgets = {} }) {
  const columns = isAdmin ? 9 : 8;
  return html`
    <${ListTable} name="keys" columns=${columns} loading=${loading} empty="No keys match."
      head=${html`
        <tr>
          <th>Name</th><th>Key</th>${isAdmin ? html`<th>Owner</th>` : null}<th>RPM / TPM</th><th>Quota and budgets used</th>
          <th>Expires</th><th>Last used</th><th>Status</th><th class="actions">Actions</th>
        </tr>
      `}
      rows=${keys.map((key) => html`<${KeyRow} key=${key.keyId} keyRow=${key} isAdmin=${isAdmin} onAction=${onAction} budgets=${budgets[key.keyId]} />`)}
    />
  `;
}

function KeyRow({ keyRow: key, isAdmin, onAction, budgets }) {
  const id = key.publicId;
  const readOnly = key.canManage === false;
  const revoking = key.revokedAt && key.status !== 'revoked';
  const canRotate = key.status !== 'revoked' && key.status !== 'expired' && !key.revokedAt;
  return html`
    <tr data-testid=${`key-row-${id}`} data-key-id=${key.keyId}>
      <td>
        <strong>${key.name}</strong>
        ${key.teamId ? html`<br /><small>team <a href=${`#/teams/${encodeURIComponent(key.teamId)}`} data-testid=${`key-team-${id}`}>${key.teamName ?? key.teamId}</a></small>` : null}
        ${key.models ? html`<br /><small class="muted" title="Model allowlist">${key.models.join(', ')}</small>` : null}
        ${key.tags?.length ? html`<br /><small class="muted" title="Default tags">${key.tags.join(', ')}</small>` : null}
      </td>
      <td><code data-testid=${`key-public-${id}`}>${maskedKey(id)}</code></td>
      ${isAdmin ? html`<td>${key.ownerName ?? html`<span class="muted">none</span>`}</td>` : null}
      <td class="num">${formatLimit(key.rpm)} / ${formatLimit(key.tpm)}</td>
      <td>
        <${QuotaBar} spent=${key.spentUsd} quota=${key.quotaUsd} testid=${`key-quota-${id}`} />
        <${BudgetBars} budgets=${budgets} testid=${`key-budget-${id}`} />
      </td>
      <td>${formatTime(key.expiresAt, 'never')}</td>
      <td>${formatTime(key.lastUsedAt, 'never')}</td>
      <td>
        <${StatusBadge} status=${key.status} testid=${`key-status-${id}`} />
        ${revoking ? html`<br /><small class="muted">revoked at ${formatTime(key.revokedAt)}</small>` : null}
      </td>
      <td class="actions">
        <button type="button" class="outline small" data-testid=${`key-edit-${id}`} disabled=${readOnly || key.status === 'revoked'} onClick=${() => onAction({ kind: 'edit', key })}>Edit</button>
        <button type="button" class="outline small" data-testid=${`key-rotate-${id}`} disabled=${readOnly || !canRotate} onClick=${() => onAction({ kind: 'rotate', key })}>Rotate</button>
        <button type="button" class="outline small danger" data-testid=${`key-revoke-${id}`} disabled=${readOnly || key.status === 'revoked'} onClick=${() => onAction({ kind: 'revoke', key })}>Revoke</button>
      </td>
    </tr>
  `;
}
