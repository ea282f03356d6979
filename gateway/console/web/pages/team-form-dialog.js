/**
 * Create / edit team dialog (admins): name, RPM/TPM, requests and tokens per day, the model
 * allowlist that bounds every key of the team, default tags and, when editing, disabled →
 * `POST /teams` or `PATCH /teams/:id`.
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { inputValue, parseList, parseOptionalNumber } from '../format.js';
import { FormButtons, FormError, Input, Switch, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = ['name', 'rpm', 'tpm', 'rpd', 'tpd', 'models', 'tags', 'disabled'];

/** Form values of a team row (or a new team's defaults). */
export function teamFormValues(team) {
  return {
    name: team?.name ?? '',
    rpm: inputValue(team?.rpm),
    tpm: inputValue(team?.tpm),
    rpd: inputValue(team?.rpd),
    tpd: inputValue(team?.tpd),
    models: team?.models ? team.models.join(', ') : '',
    tags: team?.tags ? team.tags.join(', ') : '',
    disabled: team?.disabled ?? false,
  };
}

/** The API body: blanks → null limits and allowlist, tags as a list; `disabled` only when editing. */
export function teamBody(values, editing) {
  const body = {
    name: values.name.trim(),
    rpm: parseOptionalNumber(values.rpm),
    tpm: parseOptionalNumber(values.tpm),
    rpd: parseOptionalNumber(values.rpd),
    tpd: parseOptionalNumber(values.tpd),
    models: parseList(values.models),
    tags: parseList(values.tags) ?? [],
  };
  if (editing) body.disabled = values.disabled;
  return body;
}

/** @param {{ team: object|null, onClose: () => void, onSaved: (team: object) => void }} props */
export function TeamFormDialog({ team, onClose, onSaved }) {
  const editing = Boolean(team);
  const form = useForm(teamFormValues(team));
  const save = form.submit(async (values) => {
    const body = teamBody(values, editing);
    const answer = editing ? await api.patch(`/teams/${seg(team.teamId)}`, body) : await api.post('/teams', body);
    onSaved(answer.team);
  });
  return html`
    <${ModalDialog} title=${editing ? `Edit team ${team.name}` : 'Create team'} onClose=${onClose} testid="team-dialog">
      <form onSubmit=${save}>
        <${Input} label="Name" name="name" form=${form} testid="team-name" required autofocus />
        <div class="grid">
          <${Input} label="RPM" name="rpm" type="number" min="1" step="1" form=${form} testid="team-rpm" placeholder="unlimited" hint="requests per minute" />
          <${Input} label="TPM" name="tpm" type="number" min="1" step="1" form=${form} testid="team-tpm" placeholder="unlimited" hint="tokens per minute" />
          <${Input} label="RPD" name="rpd" type="number" min="1" step="1" form=${form} testid="team-rpd" placeholder="unlimited" hint="requests per day" />
          <${Input} label="TPD" name="tpd" type="number" min="1" step="1" form=${form} testid="team-tpd" placeholder="unlimited" hint="tokens per day" />
        </div>
        <${Input} label="Models" name="models" form=${form} testid="team-models" placeholder="every model" hint="comma-separated: bounds every key of the team" />
        <${Input} label="Default tags" name="tags" form=${form} testid="team-tags" placeholder="none" hint="comma-separated name=value, added to every request of the team's keys" />
        ${editing ? html`<${Switch} label="Disabled (every key of the team is refused)" name="disabled" form=${form} testid="team-disabled" />` : null}
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Create team'} testidPrefix="team" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
