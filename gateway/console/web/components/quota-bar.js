/**
 * Quota used as a `<progress>` bar with "$spent / $quota" (or "$spent / unlimited") under it.
 */
import { html } from '/console/vendor/htm-preact.js';
import { formatUsd } from '../format.js';

/**
 * @param {{ spent: string|null, quota: string|null, testid?: string }} props USD decimal strings;
 *   quota null = unlimited (no bar, only the text). The bar turns red at ≥ 90 %.
 */
export function QuotaBar({ spent, quota, testid }) {
  const spentNumber = Number(spent ?? 0) || 0;
  const quotaNumber = quota === null || quota === undefined ? null : Number(quota);
  const text = `${formatUsd(spent ?? '0')} / ${quotaNumber === null ? 'unlimited' : formatUsd(quota)}`;
  const ratio = quotaNumber ? spentNumber / quotaNumber : quotaNumber === 0 ? 1 : 0;
  return html`
    <div class="quota" data-testid=${testid}>
      ${
        quotaNumber === null
          ? null
          : html`<progress class=${ratio >= 0.9 ? 'over' : ''} value=${Math.min(spentNumber, quotaNumber)} max=${quotaNumber || 1}></progress>`
      }
      <small>${text}</small>
    </div>
  `;
}
