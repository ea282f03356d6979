/**
 * A table of budgets with their window's use (`GET /budgets?scope=&scopeId=`): name, what it is
 * on, limit, period, the use bar with its reset time, thresholds and downgrade model; admins also
 * create, edit and remove them. Used by the Budgets page (every budget) and the team page.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { formatTokens, formatUsd } from '../format.js';
import { useSession } from '../session-context.js';
import { useApiData } from '../components/use-api-data.js';
import { ListTable, PageError } from '../components/list-page-parts.js';
import { BudgetBar } from '../components/budget-bar.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { BudgetFormDialog } from './budget-form-dialog.js';

/** `$10.00 · 5,000 tokens`: a budget's limits. */
export function budgetLimitText(budget) {
  const parts = [];
  if (budget.limitUsd !== null) parts.push(formatUsd(budget.limitUsd));
  if (budget.limitTokens !== null) parts.push(`${formatTokens(budget.limitTokens)} tokens`);
  return parts.join(' · ');
}

/** `day (Europe/Berlin)`, `rolling 2 h`, `lifetime`. */
export function periodText(budget) {
  if (budget.period === 'rolling') {
    const hours = budget.rollingMs / 3_600_000;
    return Number.isInteger(hours) ? `rolling ${hours} h` : `rolling ${Math.round(budget.rollingMs / 60_000)} min`;
  }
  return budget.period === 'lifetime' ? 'lifetime' : `${budget.period} (${budget.timeZone})`;
}

/**
 * @param {{ scope?: string, scopeId?: string, title?: string, showScope?: boolean }} props
 *   `scope`/`scopeId` narrow the list (and fix new budgets to them); `showScope` adds the column
 *   saying what each budget is on.
 */
export function BudgetsSection({ scope, scopeId, title = 'Budgets', showScope = false }) {
  const { isAdmin } = useSession();
  const budgets = useApiData(() => api.get('/budgets', { scope, scopeId }), [scope, scopeId]);
  const [dialog, setDialog] = useState(null);
  const saved = () => {
    setDialog(null);
    budgets.reload();
  };
  const remove = (budget) => async () => {
    await api.delete(`/budgets/${seg(budget.budgetId)}`);
    saved();
  };
  const rows = budgets.data?.budgets ?? [];
  const columns = (showScope ? 7 : 6) + (isAdmin ? 1 : 0);
  return html`
    <section data-testid="budgets-section">
      <div class="page-head">
        <h3>${title}</h3>
        ${isAdmin ? html`<button type="button" class="small" data-testid="budget-create" onClick=${() => setDialog({ kind: 'edit', budget: null })}>Add budget</button>` : null}
      </div>
      <${PageError} error=${budgets.error} />
      <${ListTable} name="budgets" columns=${columns} loading=${budgets.loading && !budgets.data} empty="No budgets."
        head=${html`<tr>
          <th>Name</th>${showScope ? html`<th>On</th>` : null}<th>Limit</th><th>Period</th><th>Use of this window</th>
          <th>Alerts at</th><th>At the limit</th>${isAdmin ? html`<th class="actions">Actions</th>` : null}
        </tr>`}
        rows=${rows.map(
          (b) => html`<tr key=${b.budgetId} data-testid=${`budget-row-${b.budgetId}`}>
            <td><strong>${b.name}</strong></td>
            ${showScope ? html`<td>${b.scope.replace('_', ' ')}: ${b.scopeName}</td>` : null}
            <td class="num">${budgetLimitText(b)}</td>
            <td>${periodText(b)}</td>
            <td><${BudgetBar} use=${b.use} testid=${`budget-use-${b.budgetId}`} /></td>
            <td>${b.thresholds.length ? b.thresholds.map((t) => `${t}%`).join(', ') : html`<span class="muted">none</span>`}</td>
            <td>${b.downgradeModel ? html`downgrade to <code>${b.downgradeModel}</code>` : 'refuse (429)'}</td>
            ${
              isAdmin
                ? html`<td class="actions">
                  <button type="button" class="outline small" data-testid=${`budget-edit-${b.budgetId}`} onClick=${() => setDialog({ kind: 'edit', budget: b })}>Edit</button>
                  <button type="button" class="outline small danger" data-testid=${`budget-remove-${b.budgetId}`} onClick=${() => setDialog({ kind: 'remove', budget: b })}>Remove</button>
                </td>`
                : null
            }
          </tr>`,
        )}
      />
      ${dialog?.kind === 'edit' ? html`<${BudgetFormDialog} budget=${dialog.budget} scope=${scope} scopeId=${scopeId} onClose=${() => setDialog(null)} onSaved=${saved} />` : null}
      ${
        dialog?.kind === 'remove'
          ? html`<${ConfirmDialog} title=${`Remove budget ${dialog.budget.name}?`} text="Its spend so far stays in the analytics tables." onConfirm=${remove(dialog.budget)} onClose=${() => setDialog(null)} />`
          : null
      }
    </section>
  `;
}
