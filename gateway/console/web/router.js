/**
 * Hash routing: `#/keys`, `#/usage`, `#/usage/<requestId>`, … → `{ page, param }`. The hash is
 * the only navigation state, so the back button and reloads keep the page.
 */
import { useEffect, useState } from '/console/vendor/htm-preact.js';

/** The page shown when the hash names none. */
export const DEFAULT_PAGE = 'keys';

/**
 * Reads a hash such as `#/usage/req_1` → `{ page: 'usage', param: 'req_1' }`; an empty hash →
 * `{ page: DEFAULT_PAGE, param: null }`. The param is URI-decoded.
 * @param {string} hash `location.hash`
 */
export function parseRoute(hash) {
  const path = String(hash || '').replace(/^#\/?/, '');
  const [page = '', ...rest] = path.split('/');
  const raw = rest.join('/');
  let param = null;
  if (raw) {
    try {
      param = decodeURIComponent(raw);
    } catch {
      param = raw;
    }
  }
  return { page: page || DEFAULT_PAGE, param };
}

/** The hash of a page: `routeHash('usage', 'req 1')` → `#/usage/req%201`. */
export function routeHash(page, param) {
  return param ? `#/${page}/${encodeURIComponent(param)}` : `#/${page}`;
}

/** Goes to a page (adds a history entry). */
export function navigate(page, param) {
  window.location.hash = routeHash(page, param);
}

/** Hook: the current route, updated on every `hashchange`. */
export function useRoute() {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
