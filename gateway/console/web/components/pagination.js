/**
 * Offset/limit pagination under a table: "1–50 of N" with Previous and Next buttons.
 */
import { html } from '/console/vendor/htm-preact.js';
import { formatTokens } from '../format.js';

/** Rows per page of every paginated list. */
export const PAGE_SIZE = 50;

/** The range text: `1–50 of 120`, `0 of 0` for an empty list. */
export function rangeText(offset, limit, total) {
  if (!total) return '0 of 0';
  const last = Math.min(offset + limit, total);
  return `${formatTokens(offset + 1)}–${formatTokens(last)} of ${formatTokens(total)}`;
}

/**
 * @param {{ offset: number, limit: number, total: number, onChange: (offset: number) => void }} props
 */
export function Pagination({ offset, limit, total, onChange }) {
  const hasPrevious = offset > 0;
  const hasNext = offset + limit < total;
  return html`
    <div class="pagination">
      <span data-testid="page-range">${rangeText(offset, limit, total)}</span>
      <button type="button" class="secondary outline" data-testid="page-prev" disabled=${!hasPrevious} onClick=${() => onChange(Math.max(0, offset - limit))}>Previous</button>
      <button type="button" class="secondary outline" data-testid="page-next" disabled=${!hasNext} onClick=${() => onChange(offset + limit)}>Next</button>
    </div>
  `;
}
