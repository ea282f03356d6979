/**
 * Team page (`#/teams/<teamId>`): the team's settings (limits, models, per-model limits, default
 * tags), its members, its budgets with the use of their window and their reset time, and its keys.
 * Admins edit the team and its members and budgets; a team admin creates and manages the team's
 * keys; a member sees it all read-only.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { formatLimit, formatTime } from '../format.js';
import { useSession } from '../session-context.js';
import { useApiData } from '../components/use-api-data.js';
import { ListTable, PageError } from '../components/list-page-parts.js';
import { FormButtons, FormError, Select, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { StatusBadge } from '../components/status-badge.js';
import { BudgetsSection } from './budgets-section.js';
import { TeamFormDialog } from './team-form-dialog.js';
import { KeyDialogs, KeyTable, useKeyBudgets } from './keys.js';
import { ROLE_LABELS } from './teams.js';

const ROLES = [
  { value: 'member', label: 'member (sees the team)' },
  { value: 'team_admin', label: "team admin (manages the team's keys)" },
];

/** @param {{ teamId: string }} props */
export function TeamDetailPage({ teamId }) {
  const { isAdmin } = useSession();
  const answer = useApiData(() => api.get(`/teams/${seg(teamId)}`), [teamId]);
  const [editing, setEditing] = useState(false);
  const team = answer.data?.team;
  if (!team)
    return html`<section>
      <p><a href="#/teams">← Teams</a></p>
      <${PageError} error=${answer.error} />
      ${answer.loading ? html`<p aria-busy="true">Loading…</p>` : null}
    </section>`;
  return html`
    <section data-testid="team-page">
      <p><a href="#/teams">← Teams</a></p>
      <div class="page-head">
        <h2 data-testid="team-title">${team.name}</h2>
        <${StatusBadge} status=${team.disabled ? 'disabled' : 'active'} testid="team-status" />
        <small class="muted">your role: ${ROLE_LABELS[team.access] ?? team.access}</small>
        ${isAdmin ? html`<button type="button" data-testid="team-edit" onClick=${() => setEditing(true)}>Edit team</button>` : null}
      </div>
      <${PageError} error=${answer.error} />
      <${TeamSettings} team=${team} />
      <${TeamMembers} team=${team} isAdmin=${isAdmin} onChanged=${answer.reload} />
      <${BudgetsSection} scope="team" scopeId=${team.teamId} title="Budgets of the team" />
      <${TeamKeys} team=${team} onChanged=${answer.reload} />
      ${
        editing
          ? html`<${TeamFormDialog} team=${team} onClose=${() => setEditing(false)} onSaved=${() => {
              setEditing(false);
              answer.reload();
            }} />`
          : null
      }
    </section>
  `;
}

function TeamSettings({ team }) {
  return html`
    <figure class="table-wrap">
      <table class="dense detail" data-testid="team-settings">
        <tbody>
          <tr><th>Team id</th><td>${team.teamId}</td></tr>
          <tr><th>RPM / TPM</th><td>${formatLimit(team.rpm)} / ${formatLimit(team.tpm)}</td></tr>
          <tr><th>Requests / tokens per day</th><td>${formatLimit(team.rpd)} / ${formatLimit(team.tpd)}</td></tr>
          <tr><th>Models</th><td data-testid="team-models">${team.models ? team.models.join(', ') : 'every model'}</td></tr>
          <tr><th>Per-model limits</th><td>${
            team.modelLimits.length
              ? team.modelLimits
                  .map(
                    (l) =>
                      `${l.model}: ${['rpm', 'tpm', 'rpd', 'tpd']
                        .filter((n) => l[n] !== null && l[n] !== undefined)
                        .map((n) => `${n}=${l[n]}`)
                        .join(' ')}`,
                  )
                  .join('; ')
              : 'none'
          }</td></tr>
          <tr><th>Default tags</th><td data-testid="team-tags">${team.tags.length ? team.tags.join(', ') : 'none'}</td></tr>
          <tr><th>Created</th><td>${formatTime(team.createdAt)}</td></tr>
        </tbody>
      </table>
    </figure>
  `;
}

function TeamMembers({ team, isAdmin, onChanged }) {
  const [dialog, setDialog] = useState(null);
  const done = () => {
    setDialog(null);
    onChanged();
  };
  return html`
    <section>
      <div class="page-head">
        <h3>Members</h3>
        ${isAdmin ? html`<button type="button" class="small" data-testid="member-add" onClick=${() => setDialog({ kind: 'set', member: null })}>Add member</button>` : null}
      </div>
      <${ListTable} name="members" columns=${isAdmin ? 4 : 3} loading=${false} empty="No members yet."
        head=${html`<tr><th>Name</th><th>Login</th><th>Role</th>${isAdmin ? html`<th class="actions">Actions</th>` : null}</tr>`}
        rows=${team.members.map(
          (m) => html`<tr key=${m.userId} data-testid=${`member-row-${m.userId}`}>
            <td>${m.name ?? m.userId}</td>
            <td>${m.login ?? html`<span class="muted">cannot sign in</span>`}</td>
            <td data-testid=${`member-role-${m.userId}`}>${ROLE_LABELS[m.role]}</td>
            ${
              isAdmin
                ? html`<td class="actions">
                  <button type="button" class="outline small" data-testid=${`member-edit-${m.userId}`} onClick=${() => setDialog({ kind: 'set', member: m })}>Change role</button>
                  <button type="button" class="outline small danger" data-testid=${`member-remove-${m.userId}`} onClick=${() => setDialog({ kind: 'remove', member: m })}>Remove</button>
                </td>`
                : null
            }
          </tr>`,
        )}
      />
      ${dialog?.kind === 'set' ? html`<${MemberDialog} team=${team} member=${dialog.member} onClose=${() => setDialog(null)} onSaved=${done} />` : null}
      ${
        dialog?.kind === 'remove'
          ? html`<${ConfirmDialog} title=${`Remove ${dialog.member.name ?? dialog.member.userId} from ${team.name}?`}
              text="Their own keys stay theirs; the team's keys stay the team's."
              onConfirm=${async () => {
                await api.delete(`/teams/${seg(team.teamId)}/members/${seg(dialog.member.userId)}`);
                done();
              }} onClose=${() => setDialog(null)} />`
          : null
      }
    </section>
  `;
}

/** Adds a member (a user picked from the users list) or changes a member's role. */
function MemberDialog({ team, member, onClose, onSaved }) {
  const form = useForm({ userId: member?.userId ?? '', role: member?.role ?? 'member' });
  const users = useApiData(() => (member ? Promise.resolve(null) : api.get('/users', { limit: 200 })), []);
  const save = form.submit(async (values) => {
    await api.put(`/teams/${seg(team.teamId)}/members/${seg(values.userId)}`, { role: values.role });
    onSaved();
  });
  const inTeam = new Set(team.members.map((m) => m.userId));
  const userOptions = [
    { value: '', label: users.loading ? 'Loading users…' : 'Choose a user' },
    ...(users.data?.users ?? [])
      .filter((u) => !inTeam.has(u.userId))
      .map((u) => ({ value: u.userId, label: `${u.name}${u.login ? ` (${u.login})` : ''}` })),
  ];
  return html`
    <${ModalDialog} title=${member ? `Role of ${member.name ?? member.userId}` : `Add a member to ${team.name}`} onClose=${onClose} testid="member-dialog">
      <form onSubmit=${save}>
        ${member ? null : html`<${Select} label="User" name="userId" form=${form} testid="member-user" options=${userOptions} />`}
        <${Select} label="Role" name="role" form=${form} testid="member-role" options=${ROLES} />
        <${FormError} error=${form.error} fields=${['userId', 'role']} />
        <${FormButtons} form=${form} submitLabel=${member ? 'Save' : 'Add member'} testidPrefix="member" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}

function TeamKeys({ team, onChanged }) {
  const { isAdmin } = useSession();
  const keys = useApiData(() => api.get('/keys', { teamId: team.teamId, limit: 200 }), [team.teamId]);
  const budgets = useKeyBudgets();
  const [dialog, setDialog] = useState(null);
  const canCreate = team.access === 'admin' || team.access === 'team_admin';
  const close = () => setDialog(null);
  const changed = () => {
    setDialog(null);
    keys.reload();
    onChanged();
  };
  const minted = (title, apiKey, note) => {
    setDialog({ kind: 'secret', title, apiKey, note });
    keys.reload();
    onChanged();
  };
  return html`
    <section data-testid="team-keys">
      <div class="page-head">
        <h3>Keys of the team</h3>
        ${canCreate ? html`<button type="button" class="small" data-testid="team-key-create" onClick=${() => setDialog({ kind: 'create' })}>Create key</button>` : null}
      </div>
      <${PageError} error=${keys.error} />
      <${KeyTable} keys=${keys.data?.keys ?? []} loading=${keys.loading && !keys.data} isAdmin=${isAdmin} onAction=${setDialog} budgets=${budgets} />
      <${KeyDialogs} dialog=${dialog} close=${close} changed=${changed} minted=${minted} teamId=${team.teamId} />
    </section>
  `;
}
