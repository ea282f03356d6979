/**
 * Budgets page (`#/budgets`, admin): every budget with its window's use, filtered by scope, with
 * the budget form; and the alert webhooks the threshold alerts go to.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { FilterSelect } from '../components/list-page-parts.js';
import { BudgetsSection } from './budgets-section.js';
import { AlertWebhooksSection } from './alert-webhooks-section.js';

const SCOPES = ['key', 'user', 'team', 'end_user', 'tag'];

/** The budgets page. */
export function BudgetsPage() {
  const [scope, setScope] = useState('');
  return html`
    <section>
      <div class="page-head"><h2>Budgets</h2></div>
      <div class="filters">
        <${FilterSelect} label="Scope" testid="budget-scope-filter" value=${scope} any="Every scope" choices=${SCOPES} onChange=${setScope} />
      </div>
      <${BudgetsSection} key=${scope} scope=${scope || undefined} title="Budgets" showScope=${true} />
      <${AlertWebhooksSection} />
    </section>
  `;
}
