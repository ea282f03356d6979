/**
 * "Change password" dialog: current and new password (typed twice) → `POST /session/password`.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { ApiError, api } from '../api-client.js';
import { FormButtons, FormError, Input, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = ['currentPassword', 'newPassword', 'confirmPassword'];

/** @param {{ onClose: () => void }} props */
export function ChangePasswordDialog({ onClose }) {
  const form = useForm({ currentPassword: '', newPassword: '', confirmPassword: '' });
  const [done, setDone] = useState(false);
  const save = form.submit(async (values) => {
    if (values.newPassword !== values.confirmPassword)
      throw new ApiError('does not match the new password', 0, 'confirmPassword');
    await api.post('/session/password', { currentPassword: values.currentPassword, newPassword: values.newPassword });
    setDone(true);
  });
  if (done) {
    return html`
      <${ModalDialog} title="Change password" onClose=${onClose} testid="password-dialog">
        <p data-testid="password-done">Your password has been changed.</p>
        <footer><button type="button" data-testid="password-close" onClick=${onClose}>Close</button></footer>
      </${ModalDialog}>
    `;
  }
  return html`
    <${ModalDialog} title="Change password" onClose=${onClose} testid="password-dialog">
      <form onSubmit=${save}>
        <${Input} label="Current password" name="currentPassword" type="password" autocomplete="current-password" required form=${form} testid="password-current" />
        <${Input} label="New password" name="newPassword" type="password" autocomplete="new-password" required form=${form} testid="password-new" hint="8–200 characters" />
        <${Input} label="New password again" name="confirmPassword" type="password" autocomplete="new-password" required form=${form} testid="password-confirm" />
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel="Change password" testidPrefix="password" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
