/**
 * A list page's shared state: a search box (debounced 250 ms), offset pagination, and the API
 * call that loads one page of `path` with `q`, `offset`, `limit` and any extra filters.
 */
import { html, useState } from '/console/vendor/htm-preact.js';
import { api } from '../api-client.js';
import { useApiData, useDebounced } from './use-api-data.js';
import { PAGE_SIZE } from './pagination.js';

/**
 * Hook: one page of `GET /console/api<path>` as the search and offset change.
 * @param {string} path e.g. `/users`
 * @param {Record<string, string>} [filters] more query fields (a change reloads and goes back to page 1 via `resetOffset`)
 * @returns {{ list: ReturnType<typeof useApiData>, search: string, setSearch: (text: string) => void, offset: number, setOffset: (n: number) => void }}
 */
export function useSearchedList(path, filters = {}) {
  const [search, setSearchText] = useState('');
  const [offset, setOffset] = useState(0);
  const q = useDebounced(search.trim(), 250);
  const filterValues = Object.values(filters);
  const list = useApiData(
    () => api.get(path, { q, offset, limit: PAGE_SIZE, ...filters }),
    [path, q, offset, ...filterValues],
  );
  const setSearch = (text) => {
    setSearchText(text);
    setOffset(0);
  };
  return { list, search, setSearch, offset, setOffset };
}

/** The search input of a list page: `onSearch(text)` on every keystroke. */
export function SearchBox({ value, onSearch, placeholder, label, testid }) {
  return html`<input type="search" placeholder=${placeholder} aria-label=${label} data-testid=${testid} value=${value} onInput=${(e) => onSearch(e.currentTarget.value)} />`;
}
