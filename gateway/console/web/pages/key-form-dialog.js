/**
 * Create / edit key dialog. Create: name, RPM, TPM, quota (USD), expiry, model allowlist, default
 * tags, the team (those the user may add keys to: every team for admins, the teams they are team
 * admin of) and, for admins, the owner → `POST /keys`. Edit: the same limits plus enabled →
 * `PATCH /keys/:id` with only the fields that changed (so an untouched past expiry is not sent back).
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { fromLocalInput, inputValue, parseList, parseOptionalNumber, toLocalInput } from '../format.js';
import { useSession } from '../session-context.js';
import { useApiData } from '../components/use-api-data.js';
import { FormButtons, FormError, Input, Select, Switch, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = ['name', 'rpm', 'tpm', 'quotaUsd', 'expiresAt', 'models', 'tags', 'teamId', 'userId', 'enabled'];

/** Form values of a key row (or the defaults for a new key owned by `ownerId`). */
export function keyFormValues(key, ownerId, teamId) {
  return {
    teamId: key ? inputValue(key.teamId) : (teamId ?? ''),
    tags: key?.tags ? key.tags.join(', ') : '',
    name: key?.name ?? '',
    rpm: inputValue(key?.rpm),
    tpm: inputValue(key?.tpm),
    quotaUsd: inputValue(key?.quotaUsd),
    expiresAt: toLocalInput(key?.expiresAt),
    models: key?.models ? key.models.join(', ') : '',
    userId: key ? inputValue(key.userId) : (ownerId ?? ''),
    enabled: key ? key.enabled : true,
  };
}

/** The API body of the form: numbers and null for blanks; `expiresAt` ISO-8601 UTC. */
export function keyBody(values) {
  const quota = values.quotaUsd.trim();
  return {
    name: values.name.trim(),
    rpm: parseOptionalNumber(values.rpm),
    tpm: parseOptionalNumber(values.tpm),
    quotaUsd: quota === '' ? null : quota,
    expiresAt: fromLocalInput(values.expiresAt),
    models: parseList(values.models),
    tags: parseList(values.tags) ?? [],
  };
}

/** The PATCH body: only the fields whose form value differs from `initial`. */
export function changedKeyFields(values, initial) {
  const body = keyBody(values);
  const patch = {};
  for (const name of Object.keys(body)) {
    if (String(values[name]).trim() !== String(initial[name]).trim()) patch[name] = body[name];
  }
  if (values.enabled !== initial.enabled) patch.enabled = values.enabled;
  return patch;
}

/**
 * @param {{ keyRow?: object, teamId?: string, onClose: () => void, onSaved: (result: object) => void }} props
 *   without `keyRow` it creates a key (of team `teamId` when given) and `onSaved` gets `{ key, apiKey }`.
 */
export function KeyFormDialog({ keyRow, teamId, onClose, onSaved }) {
  const { user, isAdmin } = useSession();
  const editing = Boolean(keyRow);
  const initial = keyFormValues(keyRow, user?.userId, teamId);
  const teams = useApiData(() => (editing ? Promise.resolve(null) : api.get('/teams', { limit: 200 })), []);
  const form = useForm(initial);
  const owners = useApiData(
    () => (isAdmin && !editing ? api.get('/users', { limit: 200 }) : Promise.resolve(null)),
    [],
  );
  const save = form.submit(async (values) => {
    if (editing) {
      const patch = changedKeyFields(values, initial);
      if (Object.keys(patch).length === 0) return onClose();
      onSaved(await api.patch(`/keys/${seg(keyRow.keyId)}`, patch));
      return undefined;
    }
    const body = keyBody(values);
    if (values.teamId !== '') body.teamId = values.teamId;
    if (isAdmin) body.userId = values.userId === '' ? null : values.userId;
    onSaved(await api.post('/keys', body));
    return undefined;
  });
  const ownerOptions = [
    { value: '', label: '(no owner)' },
    ...(owners.data?.users ?? []).map((u) => ({
      value: u.userId,
      label: `${u.name}${u.login ? ` (${u.login})` : ''}`,
    })),
  ];
  if (owners.data && user && !owners.data.users.some((u) => u.userId === user.userId))
    ownerOptions.push({ value: user.userId, label: user.name });
  const teamOptions = [
    { value: '', label: '(no team)' },
    ...(teams.data?.teams ?? [])
      .filter((t) => t.access !== 'member' || t.teamId === initial.teamId)
      .map((t) => ({ value: t.teamId, label: t.name })),
  ];
  return html`
    <${ModalDialog} title=${editing ? `Edit key ${keyRow.name}` : 'Create key'} onClose=${onClose} testid="key-dialog">
      <form onSubmit=${save}>
        <${Input} label="Name" name="name" form=${form} testid="key-name" required autofocus />
        <div class="grid">
          <${Input} label="RPM" name="rpm" type="number" min="1" step="1" form=${form} testid="key-rpm" placeholder="unlimited" hint="requests per minute" />
          <${Input} label="TPM" name="tpm" type="number" min="1" step="1" form=${form} testid="key-tpm" placeholder="unlimited" hint="tokens per minute" />
          <${Input} label="Quota (USD)" name="quotaUsd" type="number" min="0" step="any" form=${form} testid="key-quota" placeholder="unlimited" />
        </div>
        <div class="grid">
          <${Input} label="Expires" name="expiresAt" type="datetime-local" form=${form} testid="key-expires" hint="blank = never" />
          ${
            isAdmin && !editing
              ? html`<${Select} label="Owner" name="userId" form=${form} testid="key-owner" options=${ownerOptions} />`
              : null
          }
        </div>
        <${Input} label="Model allowlist" name="models" form=${form} testid="key-models" placeholder="every model" hint="comma-separated, e.g. gpt-4o-mini, claude-sonnet-4" />
        <div class="grid">
          <${Input} label="Default tags" name="tags" form=${form} testid="key-tags" placeholder="none" hint="comma-separated name=value, added to every request" />
          ${
            editing || teamOptions.length <= 1
              ? null
              : html`<${Select} label="Team" name="teamId" form=${form} testid="key-team" options=${teamOptions} />`
          }
        </div>
        ${editing ? html`<${Switch} label="Enabled" name="enabled" form=${form} testid="key-enabled" />` : null}
        ${owners.error ? html`<small class="muted">Users could not be loaded: ${owners.error.message}</small>` : null}
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Create key'} testidPrefix="key" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
