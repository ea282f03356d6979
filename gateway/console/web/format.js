/**
 * How the console shows and reads values: money (USD decimal strings → `$0.001234`), token
 * counts with thousands separators, times in the browser's locale, limits, and the conversions
 * between ISO-8601 strings and `<input type="datetime-local">` values.
 */

const usdFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 });
const tinyUsdFormat = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const integerFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/**
 * `"0.0012345"` → `$0.001235`, `"12.5"` → `$12.50`, `"1234"` → `$1,234.00`: at most 6 decimals
 * (trailing zeros trimmed, at least 2). Amounts below $0.000001 keep 3 significant digits
 * (`$0.000000123`). null/undefined/'' → `—`.
 * @param {string|number|null|undefined} value USD
 */
export function formatUsd(value) {
  if (value === null || value === undefined || value === '') return '—';
  const amount = Number(value);
  if (!Number.isFinite(amount)) return String(value);
  const abs = Math.abs(amount);
  const sign = amount < 0 ? '-' : '';
  if (abs > 0 && abs < 0.000001) return `${sign}$${tinyUsdFormat.format(abs)}`;
  return `${sign}$${usdFormat.format(abs)}`;
}

/** Tokens (or any count) with the locale's thousands separators; null → `—`. */
export function formatTokens(value) {
  if (value === null || value === undefined || value === '') return '—';
  const n = Number(value);
  return Number.isFinite(n) ? integerFormat.format(n) : String(value);
}

/** An RPM/TPM limit: a number with separators, or `∞` for null (unlimited). */
export function formatLimit(value) {
  return value === null || value === undefined ? '∞' : formatTokens(value);
}

/** An ISO-8601 time (or ms since epoch) in the browser's locale, date and time; `fallback` for null. */
export function formatTime(iso, fallback = '—') {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

/** A 0–1 fraction as a percentage with one decimal (`0.125` → `12.5%`); null → `—`. */
export function formatPercent(fraction) {
  if (fraction === null || fraction === undefined || !Number.isFinite(Number(fraction))) return '—';
  return `${(Number(fraction) * 100).toFixed(1)}%`;
}

/** Milliseconds as `850 ms` / `1.2 s`; null → `—`. */
export function formatMs(ms) {
  if (ms === null || ms === undefined) return '—';
  const n = Number(ms);
  if (!Number.isFinite(n)) return String(ms);
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

/** ISO-8601 → `YYYY-MM-DDTHH:mm` in local time for a datetime-local input; '' for null. */
export function toLocalInput(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value (local time) → ISO-8601 UTC (`…Z`); null for ''. */
export function fromLocalInput(value) {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** `"a, b,,c"` → `['a','b','c']`; null when nothing is listed. */
export function parseList(text) {
  const items = String(text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return items.length > 0 ? items : null;
}

/** `''` → null, else the number typed (the server validates it). */
export function parseOptionalNumber(text) {
  const trimmed = String(text ?? '').trim();
  return trimmed === '' ? null : Number(trimmed);
}

/** null → '', else String(value): for filling form inputs. */
export function inputValue(value) {
  return value === null || value === undefined ? '' : String(value);
}

/** Compact one-line text of an object: `name=ci rpm=60 models=a,b`; nested objects as JSON. */
export function formatChanges(changes) {
  if (!changes || typeof changes !== 'object') return '';
  return Object.entries(changes)
    .map(([name, value]) => `${name}=${formatChangeValue(value)}`)
    .join(' ');
}

function formatChangeValue(value) {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return value.map(formatChangeValue).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
