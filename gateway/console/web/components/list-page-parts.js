/**
 * The parts every list page (keys, users, channels, prices, usage, audit) is made of: the page's
 * load error, a filter select with an "any" choice, the table with its empty row, the pagination
 * under the table, and the state of the page's dialog.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { PAGE_SIZE, Pagination } from './pagination.js';

/**
 * The page's load error (`data-testid="page-error"`), or nothing.
 * @param {{ error: Error|null }} props
 */
export function PageError({ error }) {
  return error ? html`<p class="form-error" role="alert" data-testid="page-error">${error.message}</p>` : null;
}

/**
 * A filter select: an empty "any" choice (`any`, e.g. `Any status`) and one option per value of
 * `choices`; `onChange(value)` with the chosen value (`''` for any).
 * @param {{ label: string, testid: string, value: string, any: string, choices: string[], onChange: (value: string) => void }} props
 */
export function FilterSelect({ label, testid, value, any, choices, onChange }) {
  return html`
    <select aria-label=${label} data-testid=${testid} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="">${any}</option>
      ${choices.map((choice) => html`<option value=${choice}>${choice}</option>`)}
    </select>
  `;
}

/**
 * A list page's table (`data-testid="<name>-table"`): the header row `head`, then the `rows`, or
 * while there are none one row across all `columns` (`<name>-empty`) reading `Loading…` while
 * the list loads, else `empty` (e.g. `No users match.`).
 * @param {{ name: string, head: unknown, rows: unknown[], columns: number, loading: boolean, empty: string, clickable?: boolean }} props
 *   `clickable` marks rows that open something on click.
 */
export function ListTable({ name, head, rows, columns, loading, empty, clickable = false }) {
  return html`
    <figure class="table-wrap">
      <table class=${clickable ? 'dense striped clickable' : 'dense striped'} data-testid=${`${name}-table`}>
        <thead>${head}</thead>
        <tbody>
          ${rows}
          ${rows.length === 0 ? html`<tr><td colspan=${columns} class="empty" data-testid=${`${name}-empty`}>${loading ? 'Loading…' : empty}</td></tr>` : null}
        </tbody>
      </table>
    </figure>
  `;
}

/**
 * The pagination under a list's table: pages of PAGE_SIZE rows over the answer's `total`.
 * @param {{ list: { data: { total?: number }|null }, offset: number, onChange: (offset: number) => void }} props
 */
export function ListPagination({ list, offset, onChange }) {
  return html`<${Pagination} offset=${offset} limit=${PAGE_SIZE} total=${list.data?.total ?? 0} onChange=${onChange} />`;
}

/**
 * Hook: the page's open dialog (null when none) and how it ends: `close()` just closes it,
 * `saved()` closes it and reloads the list, since the dialog changed what it shows.
 * @param {{ reload: () => void }} list
 * @returns {{ dialog: object|null, setDialog: (dialog: object|null) => void, close: () => void, saved: () => void }}
 */
export function useListDialog(list) {
  const [dialog, setDialog] = useState(null);
  const close = () => setDialog(null);
  const saved = () => {
    setDialog(null);
    list.reload();
  };
  return { dialog, setDialog, close, saved };
}
