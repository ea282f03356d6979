/**
 * Create / edit budget dialog (admins): name, scope and scope id (fixed when the page names them,
 * and never changed on edit), USD and/or token limit, period (day, week, month, rolling with its
 * length, lifetime), time zone of calendar periods, alert thresholds and the downgrade model →
 * `POST /budgets` or `PATCH /budgets/:id`. The server's 400 shows next to the field it names.
 */
import { html } from '/console/vendor/htm-preact.js';
import { api, seg } from '../api-client.js';
import { inputValue, parseList } from '../format.js';
import { FormButtons, FormError, Input, Select, useForm } from '../components/form-fields.js';
import { ModalDialog } from '../components/modal-dialog.js';

const FIELDS = [
  'name',
  'scope',
  'scopeId',
  'limitUsd',
  'limitTokens',
  'period',
  'rollingMs',
  'timeZone',
  'thresholds',
  'downgradeModel',
];

/** The scopes a budget may have, as the form offers them. */
export const BUDGET_SCOPES = [
  { value: 'key', label: 'key' },
  { value: 'user', label: 'user' },
  { value: 'team', label: 'team' },
  { value: 'end_user', label: 'end user' },
  { value: 'tag', label: 'tag (name=value)' },
];

const PERIODS = [
  { value: 'day', label: 'day (calendar, in the time zone)' },
  { value: 'week', label: 'week (from Monday)' },
  { value: 'month', label: 'month' },
  { value: 'rolling', label: 'rolling window' },
  { value: 'lifetime', label: 'lifetime (never resets)' },
];

/** Length units of a rolling window, in ms. */
const ROLLING_UNITS = [
  { value: '60000', label: 'minutes' },
  { value: '3600000', label: 'hours' },
  { value: '86400000', label: 'days' },
];

/** A rolling length in ms → `{ rollingLength, rollingUnit }` in the largest unit that divides it. */
export function rollingParts(rollingMs) {
  if (!rollingMs) return { rollingLength: '', rollingUnit: '3600000' };
  const unit = [...ROLLING_UNITS].reverse().find((u) => rollingMs % Number(u.value) === 0) ?? ROLLING_UNITS[0];
  return { rollingLength: String(rollingMs / Number(unit.value)), rollingUnit: unit.value };
}

/** Form values of a budget row, or a new budget's defaults on `scope`/`scopeId`. */
export function budgetFormValues(budget, scope, scopeId) {
  return {
    name: budget?.name ?? '',
    scope: budget?.scope ?? scope ?? 'team',
    scopeId: budget?.scopeId ?? scopeId ?? '',
    limitUsd: inputValue(budget?.limitUsd),
    limitTokens: inputValue(budget?.limitTokens),
    period: budget?.period ?? 'month',
    ...rollingParts(budget?.rollingMs),
    timeZone: budget?.timeZone ?? '',
    thresholds: budget ? budget.thresholds.join(', ') : '50, 80',
    downgradeModel: inputValue(budget?.downgradeModel),
  };
}

/**
 * The API body of the form: blanks → null limits and downgrade model; rollingMs for a rolling
 * period only; thresholds as numbers; a blank time zone left out (the node's default).
 * `editing` leaves out scope and scopeId, which cannot change.
 */
export function budgetBody(values, editing) {
  const number = (text) => (String(text).trim() === '' ? null : Number(text));
  const body = {
    name: values.name.trim(),
    limitUsd: values.limitUsd.trim() === '' ? null : values.limitUsd.trim(),
    limitTokens: number(values.limitTokens),
    period: values.period,
    rollingMs:
      values.period === 'rolling' && values.rollingLength.trim() !== ''
        ? Number(values.rollingLength) * Number(values.rollingUnit)
        : null,
    thresholds: (parseList(values.thresholds) ?? []).map(Number),
    downgradeModel: values.downgradeModel.trim() === '' ? null : values.downgradeModel.trim(),
  };
  if (values.timeZone.trim() !== '') body.timeZone = values.timeZone.trim();
  if (!editing) {
    body.scope = values.scope;
    body.scopeId = values.scopeId.trim();
  }
  return body;
}

/**
 * @param {{ budget?: object, scope?: string, scopeId?: string, onClose: () => void, onSaved: () => void }} props
 *   without `budget` it creates one; `scope`/`scopeId` fix what it is on.
 */
export function BudgetFormDialog({ budget, scope, scopeId, onClose, onSaved }) {
  const editing = Boolean(budget);
  const fixedScope = editing || Boolean(scope && scopeId);
  const form = useForm(budgetFormValues(budget, scope, scopeId));
  const save = form.submit(async (values) => {
    const body = budgetBody(values, editing);
    if (editing) await api.patch(`/budgets/${seg(budget.budgetId)}`, body);
    else await api.post('/budgets', body);
    onSaved();
  });
  const rolling = form.values.period === 'rolling';
  return html`
    <${ModalDialog} title=${editing ? `Edit budget ${budget.name}` : 'Create budget'} onClose=${onClose} testid="budget-dialog">
      <form onSubmit=${save}>
        <${Input} label="Name" name="name" form=${form} testid="budget-name" required autofocus />
        <div class="grid">
          <${Select} label="Scope" name="scope" form=${form} testid="budget-scope" options=${BUDGET_SCOPES} disabled=${fixedScope} />
          <${Input} label="Scope id" name="scopeId" form=${form} testid="budget-scope-id" disabled=${fixedScope}
            hint="key, user or team id; an end-user id; a tag as name=value" />
        </div>
        <div class="grid">
          <${Input} label="Limit (USD)" name="limitUsd" type="number" min="0" step="any" form=${form} testid="budget-limit-usd" placeholder="none" />
          <${Input} label="Limit (tokens)" name="limitTokens" type="number" min="0" step="1" form=${form} testid="budget-limit-tokens" placeholder="none" hint="at least one of the two" />
        </div>
        <div class="grid">
          <${Select} label="Period" name="period" form=${form} testid="budget-period" options=${PERIODS} />
          ${
            rolling
              ? html`<${Input} label="Window length" name="rollingLength" type="number" min="1" step="1" form=${form} testid="budget-rolling-length" />
                <${Select} label="Unit" name="rollingUnit" form=${form} testid="budget-rolling-unit" options=${ROLLING_UNITS} />`
              : html`<${Input} label="Time zone" name="timeZone" form=${form} testid="budget-time-zone" placeholder="the gateway's (UTC unless configured)" hint="IANA name, e.g. Europe/Berlin" />`
          }
        </div>
        ${rolling && form.error?.field === 'rollingMs' ? html`<small class="field-error" data-testid="field-error-rollingMs">${form.error.message}</small>` : null}
        <div class="grid">
          <${Input} label="Alert thresholds (%)" name="thresholds" form=${form} testid="budget-thresholds" hint="comma-separated, each in (0, 100]" />
          <${Input} label="Downgrade model" name="downgradeModel" form=${form} testid="budget-downgrade" placeholder="none: refuse at the limit" hint="at the limit, route to this model instead" />
        </div>
        <${FormError} error=${form.error} fields=${FIELDS} />
        <${FormButtons} form=${form} submitLabel=${editing ? 'Save' : 'Create budget'} testidPrefix="budget" onCancel=${onClose} />
      </form>
    </${ModalDialog}>
  `;
}
