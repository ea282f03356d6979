/**
 * Users page (`#/users`, admin): name, login, role, limits, quota used, key count and status,
 * with search, pagination and the create / edit dialog.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { formatLimit, formatTokens } from '../format.js';
import { PAGE_SIZE, Pagination } from '../components/pagination.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { QuotaBar } from '../components/quota-bar.js';
import { StatusBadge } from '../components/status-badge.js';
import { UserFormDialog } from './user-form-dialog.js';

/** The users page. */
export function UsersPage() {
  const [dialog, setDialog] = useState(null);
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/users');
  const users = list.data?.users ?? [];
  const saved = () => {
    setDialog(null);
    list.reload();
  };
  return html`
    <section>
      <div class="page-head">
        <h2>Users</h2>
        <button type="button" data-testid="user-create" onClick=${() => setDialog({ user: null })}>Create user</button>
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search name or login" label="Search users" testid="user-search" />
      </div>
      ${list.error ? html`<p class="form-error" role="alert" data-testid="page-error">${list.error.message}</p>` : null}
      <figure class="table-wrap">
        <table class="dense striped" data-testid="users-table">
          <thead>
            <tr><th>Name</th><th>Login</th><th>Role</th><th>RPM / TPM</th><th>Quota used</th><th class="num">Keys</th><th>Status</th><th class="actions">Actions</th></tr>
          </thead>
          <tbody>
            ${users.map((u) => html`<${UserRow} key=${u.userId} user=${u} onEdit=${() => setDialog({ user: u })} />`)}
            ${users.length === 0 ? html`<tr><td colspan="8" class="empty" data-testid="users-empty">${list.loading ? 'Loading…' : 'No users match.'}</td></tr>` : null}
          </tbody>
        </table>
      </figure>
      <${Pagination} offset=${offset} limit=${PAGE_SIZE} total=${list.data?.total ?? 0} onChange=${setOffset} />
      ${dialog ? html`<${UserFormDialog} userRow=${dialog.user} onClose=${() => setDialog(null)} onSaved=${saved} />` : null}
    </section>
  `;
}

function UserRow({ user, onEdit }) {
  const id = user.userId;
  return html`
    <tr data-testid=${`user-row-${id}`}>
      <td><strong>${user.name}</strong></td>
      <td>${user.login ?? html`<span class="muted">cannot sign in</span>`}</td>
      <td><${StatusBadge} status=${user.role} /></td>
      <td class="num">${formatLimit(user.rpm)} / ${formatLimit(user.tpm)}</td>
      <td><${QuotaBar} spent=${user.spentUsd} quota=${user.quotaUsd} testid=${`user-quota-${id}`} /></td>
      <td class="num">${formatTokens(user.keyCount)}</td>
      <td><${StatusBadge} status=${user.disabled ? 'disabled' : 'active'} testid=${`user-status-${id}`} /></td>
      <td class="actions"><button type="button" class="outline small" data-testid=${`user-edit-${id}`} onClick=${onEdit}>Edit</button></td>
    </tr>
  `;
}
