/**
 * Users page (`#/users`, admin): name, login, role, limits, quota and budgets used, key count and
 * status, with search, pagination and the create / edit dialog.
 */
import { html } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { useApiData } from '../components/use-api-data.js';
import { BudgetBars, budgetsByScopeId } from '../components/budget-bar.js';
import { formatLimit, formatTokens } from '../format.js';
import { ListPagination, ListTable, PageError, useListDialog } from '../components/list-page-parts.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { QuotaBar } from '../components/quota-bar.js';
import { StatusBadge } from '../components/status-badge.js';
import { UserFormDialog } from './user-form-dialog.js';

/** The users page. */
export function UsersPage() {
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/users');
  const { dialog, setDialog, close, saved } = useListDialog(list);
  const users = list.data?.users ?? [];
  const budgetAnswer = useApiData(() => api.get('/budgets', { scope: 'user' }), []);
  const budgets = budgetsByScopeId(budgetAnswer.data?.budgets);
  return html`
    <section>
      <div class="page-head">
        <h2>Users</h2>
        <button type="button" data-testid="user-create" onClick=${() => setDialog({ user: null })}>Create user</button>
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search name or login" label="Search users" testid="user-search" />
      </div>
      <${PageError} error=${list.error} />
      <${ListTable} name="users" columns=${8} loading=${list.loading} empty="No users match."
        head=${html`<tr><th>Name</th><th>Login</th><th>Role</th><th>RPM / TPM</th><th>Quota and budgets used</th><th class="num">Keys</th><th>Status</th><th class="actions">Actions</th></tr>`}
        rows=${users.map((u) => html`<${UserRow} key=${u.userId} user=${u} budgets=${budgets[u.userId]} onEdit=${() => setDialog({ user: u })} />`)}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      ${dialog ? html`<${UserFormDialog} userRow=${dialog.user} onClose=${close} onSaved=${saved} />` : null}
    </section>
  `;
}

function UserRow({ user, budgets, onEdit }) {
  const id = user.userId;
  return html`
    <tr data-testid=${`user-row-${id}`}>
      <td><strong>${user.name}</strong></td>
      <td>${user.login ?? html`<span class="muted">cannot sign in</span>`}</td>
      <td><${StatusBadge} status=${user.role} /></td>
      <td class="num">${formatLimit(user.rpm)} / ${formatLimit(user.tpm)}</td>
      <td>
        <${QuotaBar} spent=${user.spentUsd} quota=${user.quotaUsd} testid=${`user-quota-${id}`} />
        <${BudgetBars} budgets=${budgets} testid=${`user-budget-${id}`} />
      </td>
      <td class="num">${formatTokens(user.keyCount)}</td>
      <td><${StatusBadge} status=${user.disabled ? 'disabled' : 'active'} testid=${`user-status-${id}`} /></td>
      <td class="actions"><button type="button" class="outline small" data-testid=${`user-edit-${id}`} onClick=${onEdit}>Edit</button></td>
    </tr>
  `;
}
