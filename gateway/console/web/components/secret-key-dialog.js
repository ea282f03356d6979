/**
 * Shows a freshly minted API key once, in a read-only input with a Copy button, and warns that
 * it will not be shown again.
 */
import { html, useRef, useState } from '/console/vendor/htm-preact.js';
import { ModalDialog } from './modal-dialog.js';

/**
 * Copies `text` to the clipboard: navigator.clipboard.writeText, else the input's selection with
 * document.execCommand('copy'). Resolves true when one of them worked.
 * @param {string} text
 * @param {HTMLInputElement|null} input the input holding the text (for the fallback)
 */
export async function copyText(text, input) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection fallback
  }
  if (!input) return false;
  input.focus();
  input.select();
  try {
    return document.execCommand('copy');
  } catch {
    return false;
  }
}

/**
 * @param {{ title: string, apiKey: string, note?: string, what?: string, onClose: () => void }} props
 *   `note`: an extra line (e.g. when the rotated key stops working); `what`: what the secret is
 *   (default `key`, e.g. `signing secret`).
 */
export function SecretKeyDialog({ title, apiKey, note, what = 'key', onClose }) {
  const input = useRef(null);
  const [copied, setCopied] = useState(null);
  const copy = async () => setCopied(await copyText(apiKey, input.current));
  return html`
    <${ModalDialog} title=${title} onClose=${onClose} testid="new-key-dialog">
      <p class="warning" role="note">Copy this ${what} now: it will not be shown again.</p>
      <div role="group">
        <input ref=${input} type="text" readonly value=${apiKey} data-testid="new-key-value" aria-label=${what === 'key' ? 'API key' : what} onFocus=${(e) => e.currentTarget.select()} />
        <button type="button" data-testid="copy-key" onClick=${copy}>Copy</button>
      </div>
      ${copied === null ? null : html`<small data-testid="copy-key-status">${copied ? 'Copied to the clipboard.' : 'Press Ctrl+C (⌘C) to copy the selected key.'}</small>`}
      ${note ? html`<p><small>${note}</small></p>` : null}
      <footer>
        <button type="button" data-testid="new-key-done" onClick=${onClose}>Done</button>
      </footer>
    </${ModalDialog}>
  `;
}
