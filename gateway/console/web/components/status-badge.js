/**
 * A coloured status badge: green active/enabled/completed, grey disabled/cancelled, red
 * revoked/expired/failed.
 */
import { html } from '/console/vendor/htm-preact.js';

const TONES = {
  active: 'ok',
  enabled: 'ok',
  completed: 'ok',
  ok: 'ok',
  disabled: 'off',
  cancelled: 'off',
  revoked: 'bad',
  expired: 'bad',
  failed: 'bad',
  error: 'bad',
  cooling: 'warn',
  admin: 'info',
  user: 'off',
};

/** @param {{ status: string, testid?: string, label?: string }} props label defaults to the status. */
export function StatusBadge({ status, testid, label }) {
  const tone = TONES[status] ?? 'off';
  return html`<span class=${`badge badge-${tone}`} data-testid=${testid} data-status=${status}>${label ?? status}</span>`;
}
