/**
 * A confirmation dialog for removing something (`remove-dialog`): the question, Cancel
 * (`remove-cancel`) and the red confirm button (`confirm-remove`), which runs `onConfirm` and shows
 * its failure in the dialog (`form-error`).
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { ModalDialog } from './modal-dialog.js';

/**
 * @param {{ title: string, text?: string, confirmLabel?: string, onConfirm: () => Promise<void>, onClose: () => void }} props
 *   `onConfirm` resolves when done (the caller then closes the dialog) or throws an ApiError.
 */
export function ConfirmDialog({ title, text, confirmLabel = 'Remove', onConfirm, onClose }) {
  const [state, setState] = useState({ pending: false, error: null });
  const confirm = async () => {
    setState({ pending: true, error: null });
    try {
      await onConfirm();
    } catch (error) {
      setState({ pending: false, error });
    }
  };
  return html`
    <${ModalDialog} title=${title} onClose=${onClose} testid="remove-dialog">
      ${text ? html`<p>${text}</p>` : null}
      ${state.error ? html`<p class="form-error" role="alert" data-testid="form-error">${state.error.message}</p>` : null}
      <footer>
        <button type="button" class="secondary" data-testid="remove-cancel" onClick=${onClose}>Cancel</button>
        <button type="button" class="danger" data-testid="confirm-remove" aria-busy=${state.pending ? 'true' : undefined} disabled=${state.pending} onClick=${confirm}>${confirmLabel}</button>
      </footer>
    </${ModalDialog}>
  `;
}
