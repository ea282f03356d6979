/**
 * Teams page (`#/teams`): the teams the user sees (every team for admins, else their own) with
 * members, keys, limits and their role; admins create teams. A row opens the team page.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { formatLimit, formatTokens } from '../format.js';
import { navigate } from '../router.js';
import { useSession } from '../session-context.js';
import { ListPagination, ListTable, PageError } from '../components/list-page-parts.js';
import { SearchBox, useSearchedList } from '../components/searched-list.js';
import { StatusBadge } from '../components/status-badge.js';
import { TeamFormDialog } from './team-form-dialog.js';

/** How a team role reads. */
export const ROLE_LABELS = { admin: 'admin', team_admin: 'team admin', member: 'member' };

/** The teams page. */
export function TeamsPage() {
  const { isAdmin } = useSession();
  const { list, search, setSearch, offset, setOffset } = useSearchedList('/teams');
  const [creating, setCreating] = useState(false);
  const teams = list.data?.teams ?? [];
  return html`
    <section>
      <div class="page-head">
        <h2>Teams</h2>
        ${isAdmin ? html`<button type="button" data-testid="team-create" onClick=${() => setCreating(true)}>Create team</button>` : null}
      </div>
      <div class="filters">
        <${SearchBox} value=${search} onSearch=${setSearch} placeholder="Search team name" label="Search teams" testid="team-search" />
      </div>
      <${PageError} error=${list.error} />
      <${ListTable} name="teams" columns=${7} loading=${list.loading && !list.data} clickable=${true}
        empty=${isAdmin ? 'No teams yet.' : 'You are not a member of any team.'}
        head=${html`<tr><th>Name</th><th class="num">Members</th><th class="num">Keys</th><th>RPM / TPM</th><th>Models</th><th>Your role</th><th>Status</th></tr>`}
        rows=${teams.map(
          (t) => html`<tr key=${t.teamId} tabindex="0" data-testid=${`team-row-${t.teamId}`}
              onClick=${() => navigate('teams', t.teamId)} onKeyDown=${(e) => e.key === 'Enter' && navigate('teams', t.teamId)}>
            <td><a href=${`#/teams/${encodeURIComponent(t.teamId)}`}><strong>${t.name}</strong></a></td>
            <td class="num">${formatTokens(t.members.length)}</td>
            <td class="num">${formatTokens(t.keyCount)}</td>
            <td class="num">${formatLimit(t.rpm)} / ${formatLimit(t.tpm)}</td>
            <td>${t.models ? t.models.join(', ') : html`<span class="muted">every model</span>`}</td>
            <td>${ROLE_LABELS[t.access] ?? t.access}</td>
            <td><${StatusBadge} status=${t.disabled ? 'disabled' : 'active'} testid=${`team-status-${t.teamId}`} /></td>
          </tr>`,
        )}
      />
      <${ListPagination} list=${list} offset=${offset} onChange=${setOffset} />
      ${creating ? html`<${TeamFormDialog} team=${null} onClose=${() => setCreating(false)} onSaved=${(team) => navigate('teams', team.teamId)} />` : null}
    </section>
  `;
}
