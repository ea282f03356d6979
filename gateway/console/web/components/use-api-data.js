/**
 * Hook that loads data from the API and keeps the last good result while reloading, so tables
 * do not flicker on refresh or polling.
 */
import { useCallback, useEffect, useState } from '/console/vendor/htm-preact.js';

/**
 * Runs `load()` now and whenever a value in `deps` changes or `reload()` is called.
 * @param {() => Promise<T>} load
 * @param {unknown[]} deps
 * @returns {{ data: T|null, error: Error|null, loading: boolean, reload: () => void }}
 *   `error` is the last load's failure (cleared by the next success); `data` keeps the last success.
 */
export function useApiData(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

/** Hook: `value`, but only after it stopped changing for `delayMs` (ms). */
export function useDebounced(value, delayMs) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}
