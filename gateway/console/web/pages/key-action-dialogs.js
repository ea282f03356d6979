/**
 * Key actions that need a confirmation: rotate (grace period in seconds → `POST
 * /keys/:id/rotate`, the new key is then shown once) and revoke (optional reason → `POST
 * /keys/:id/revoke`).
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { FormError, Input, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

/**
 * @param {{ keyRow: object, onClose: () => void, onRotated: (result: { key, apiKey, replaced }) => void }} props
 */
export function RotateKeyDialog({ keyRow, onClose, onRotated }) {
  const form = useForm({ graceSeconds: '0' });
  const rotate = form.submit(async (values) => {
    const graceSeconds = values.graceSeconds.trim() === '' ? 0 : Number(values.graceSeconds);
    onRotated(await api.post(`/keys/${seg(keyRow.keyId)}/rotate`, { graceSeconds }));
  });
  return html`
    <${ModalDialog} title=${`Rotate key ${keyRow.name}`} onClose=${onClose} testid="rotate-dialog">
      <form onSubmit=${rotate}>
        <p>A new key with the same settings replaces <code>sk-${keyRow.publicId}-…</code>. The old key keeps working for the grace period.</p>
        <${Input} label="Grace period (seconds)" name="graceSeconds" type="number" min="0" step="1" form=${form} testid="rotate-grace" hint="0 = the old key stops at once; at most 2592000 (30 days)" />
        <${FormError} error=${form.error} fields=${['graceSeconds']} />
        <footer>
          <button type="button" class="secondary" data-testid="rotate-cancel" onClick=${onClose}>Cancel</button>
          <button type="submit" data-testid="confirm-rotate" aria-busy=${form.pending ? 'true' : undefined} disabled=${form.pending}>Rotate</button>
        </footer>
      </form>
    </${ModalDialog}>
  `;
}

/** @param {{ keyRow: object, onClose: () => void, onRevoked: () => void }} props */
export function RevokeKeyDialog({ keyRow, onClose, onRevoked }) {
  const form = useForm({ reason: '' });
  const revoke = form.submit(async (values) => {
    const reason = values.reason.trim();
    await api.post(`/keys/${seg(keyRow.keyId)}/revoke`, reason ? { reason } : {});
    onRevoked();
  });
  return html`
    <${ModalDialog} title=${`Revoke key ${keyRow.name}?`} onClose=${onClose} testid="revoke-dialog">
      <form onSubmit=${revoke}>
        <p>Requests with <code>sk-${keyRow.publicId}-…</code> will be refused from now on. This cannot be undone.</p>
        <${Input} label="Reason (optional)" name="reason" form=${form} testid="revoke-reason" maxlength="500" />
        <${FormError} error=${form.error} fields=${['reason']} />
        <footer>
          <button type="button" class="secondary" data-testid="revoke-cancel" onClick=${onClose}>Cancel</button>
          <button type="submit" class="danger" data-testid="confirm-revoke" aria-busy=${form.pending ? 'true' : undefined} disabled=${form.pending}>Revoke</button>
        </footer>
      </form>
    </${ModalDialog}>
  `;
}
