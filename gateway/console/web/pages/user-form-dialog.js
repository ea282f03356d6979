/**
 * Create / edit user dialog: name, login, password (blank = unchanged when editing), role,
 * RPM/TPM, quota (USD) and, when editing, disabled → `POST /users` or `PATCH /users/:id`.
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { inputValue, parseOptionalNumber } from '../format.js';
import { FormButtons, FormError, Input, Select, Switch, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = ['name', 'login', 'password', 'role', 'rpm', 'tpm', 'quotaUsd', 'disabled'];
const ROLES = [
  { value: 'user', label: 'user (own keys and usage)' },
  { value: 'admin', label: 'admin (everything)' },
];

/** Form values of a user row (or a new user's defaults). */
export function userFormValues(user) {
  return {
    name: user?.name ?? '',
    login: inputValue(user?.login),
    password: '',
    role: user?.role ?? 'user',
    rpm: inputValue(user?.rpm),
    tpm: inputValue(user?.tpm),
    quotaUsd: inputValue(user?.quotaUsd),
    disabled: user?.disabled ?? false,
  };
}

/**
 * The API body: blanks → null limits; login only when typed; password only when typed (so an
 * edit without one keeps the current password); `disabled` only when editing.
 */
export function userBody(values, editing) {
  const quota = values.quotaUsd.trim();
  const body = {
    name: values.name.trim(),
    role: values.role,
    rpm: parseOptionalNumber(values.rpm),
    tpm: parseOptionalNumber(values.tpm),
    quotaUsd: quota === '' ? null : quota,
  };
  if (values.login.trim() !== '') body.login = values.login.trim();
  if (values.password !== '') body.password = values.password;
  if (editing) body.disabled = values.disabled;
  return body;
}

/** @param {{ userRow: object|null, onClose: () => void, onSaved: () => void }} props */
export function UserFormDialog({ userRow, onClose, onSaved }) {
  const editing = Boolean(userRow);
  const form = useForm(userFormValues(userRow));
  const save = form.submit(async (values) => {
    const body = userBody(values, editing);
    if (editing) await api.patch(`/users/${seg(userRow.userId)}`, body);
    else await api.post('/users', body);
    onSaved();
  });
  return html`
    <${ModalDialog} title=${editing ? `Edit user ${userRow.name}` : 'Create user'} onClose=${onClose} testid="user-dialog">
      <form onSubmit=${save}>
        <div class="grid">
          <${Input} label="Name" name="name" form=${form} testid="user-name" required autofocus />
          <${Select} label="Role" name="role" form=${form} testid="user-role" options=${ROLES} />
        </div>
        <div class="grid">
          <${Input} label="Login" name="login" form=${form} testid="user-login" autocomplete="off" hint="with a password, lets the user sign in" />
          <${Input} label="Password" name="password" type="password" form=${form} testid="user-password" autocomplete="new-password"
            placeholder=${editing ? 'unchanged' : ''} hint=${editing ? 'blank = unchanged' : '8–200 characters'} />
        </div>
        <div class="grid">
          <${Input} label="RPM" name="rpm" type="number" min="1" step="1" form=${form} testid="user-rpm" placeholder="unlimited" />
          <${Input} label="TPM" name="tpm" type="number" min="1" step="1" form=${form} testid="user-tpm" placeholder="unlimited" />
          <${Input} label="Quota (USD)" name="quotaUsd" type="number" min="0" step="any" form=${form} testid="user-quota" placeholder="unlimited" />
        </div>
        ${editing ? html`<${Switch} label="Disabled" name="disabled" form=${form} testid="user-disabled" />` : null}
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Create user'} testidPrefix="user" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
