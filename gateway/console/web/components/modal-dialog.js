/**
 * A modal `<dialog>` (opened with showModal, so focus is trapped and Escape works) whose
 * visibility is owned by the caller: render it to open, stop rendering it (via `onClose`) to close.
 */
import { html, useEffect, useRef } from '/console/vendor/htm-preact.js';

/**
 * @param {{ title: string, onClose: () => void, testid?: string, wide?: boolean, children: unknown }} props
 *   `testid` is put on the `<dialog>`; the ✕ button gets `<testid>-close`.
 */
export function ModalDialog({ title, onClose, testid, wide, children }) {
  const ref = useRef(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open && typeof dialog.showModal === 'function') dialog.showModal();
  }, []);
  const cancel = (event) => {
    event.preventDefault();
    onClose();
  };
  return html`
    <dialog ref=${ref} data-testid=${testid} onCancel=${cancel} class=${wide ? 'wide' : ''}>
      <article>
        <header>
          <button type="button" class="close" aria-label="Close" data-testid=${testid ? `${testid}-close` : undefined} onClick=${onClose}></button>
          <h3>${title}</h3>
        </header>
        ${children}
      </article>
    </dialog>
  `;
}
