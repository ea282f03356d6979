/**
 * A budget's current window as a `<progress>` bar: use (spent + held) against the limit, the
 * percent, and when the window resets — from a `BudgetUse` of `GET /budgets` (CONSOLE-API.md).
 */
import { html } from '/console/vendor/htm-preact.js';
import { formatTime, formatTokens, formatUsd } from '../format.js';

/**
 * The text of a budget's use: `$2.50 + $0.10 held / $10.00` and/or `1,200 / 5,000 tokens`.
 * @param {object} use BudgetUse
 */
export function budgetUseText(use) {
  const parts = [];
  if (use.limitUsd !== null) {
    const held = Number(use.heldUsd ?? 0) > 0 ? ` + ${formatUsd(use.heldUsd)} held` : '';
    parts.push(`${use.spentUsd === null ? '?' : formatUsd(use.spentUsd)}${held} / ${formatUsd(use.limitUsd)}`);
  }
  if (use.limitTokens !== null) {
    const used = use.spentTokens === null ? '?' : formatTokens(Number(use.spentTokens) + Number(use.heldTokens ?? 0));
    parts.push(`${used} / ${formatTokens(use.limitTokens)} tokens`);
  }
  return parts.join(' · ');
}

/**
 * @param {{ use: object, testid?: string, label?: string }} props `use` is a BudgetUse; `label` a
 *   line above the bar (e.g. the budget's name). The bar turns red at ≥ 90 %.
 */
export function BudgetBar({ use, testid, label }) {
  const known = use.state === 'known' && use.percent !== null;
  const percent = known ? Number(use.percent) : 0;
  const reset = use.resetsAt ? `resets ${formatTime(use.resetsAt)}` : 'never resets';
  const someUse =
    Number(use.spentUsd ?? 0) + Number(use.heldUsd ?? 0) + Number(use.spentTokens ?? 0) + Number(use.heldTokens ?? 0) >
    0;
  const percentText = percent === 0 && someUse ? '<0.1%' : `${percent.toFixed(1)}%`;
  return html`
    <div class="quota budget-bar" data-testid=${testid} data-percent=${known ? String(percent) : 'unknown'}>
      ${label ? html`<small><strong>${label}</strong></small>` : null}
      ${known ? html`<progress class=${percent >= 90 ? 'over' : ''} value=${Math.min(percent, 100)} max="100"></progress>` : null}
      <small data-testid=${testid ? `${testid}-text` : undefined}>${known ? `${percentText} · ` : 'use unknown · '}${budgetUseText(use)}</small>
      <small class="muted" data-testid=${testid ? `${testid}-reset` : undefined}>${reset}</small>
    </div>
  `;
}

/**
 * Every budget of one thing as bars, or nothing when it has none.
 * @param {{ budgets: object[], testid: string }} props BudgetRows of one scope id.
 */
export function BudgetBars({ budgets, testid }) {
  if (!budgets || budgets.length === 0) return null;
  return html`${budgets.map(
    (b) =>
      html`<${BudgetBar} key=${b.budgetId} use=${b.use} label=${`${b.name} (${b.period})`} testid=${`${testid}-${b.budgetId}`} />`,
  )}`;
}

/**
 * Groups BudgetRows by scope id: `{ [scopeId]: BudgetRow[] }`.
 * @param {object[]} budgets
 */
export function budgetsByScopeId(budgets) {
  const grouped = {};
  for (const budget of budgets ?? []) (grouped[budget.scopeId] ??= []).push(budget);
  return grouped;
}
