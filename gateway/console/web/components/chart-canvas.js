/**
 * One Chart.js chart (the global `Chart` from /console/vendor/chart.umd.js) on a canvas; it is
 * rebuilt when `config` changes and destroyed on unmount.
 */
import { html, useEffect, useRef } from '/console/vendor/htm-preact.js';

/**
 * @param {{ config: object, testid: string, title: string, empty?: boolean }} props `config` is a
 *   Chart.js config (memoize it: a new object rebuilds the chart); `empty` shows a note instead.
 */
export function ChartCanvas({ config, testid, title, empty }) {
  const canvas = useRef(null);
  useEffect(() => {
    if (empty || !canvas.current || typeof window.Chart !== 'function') return undefined;
    const chart = new window.Chart(canvas.current, config);
    return () => chart.destroy();
  }, [config, empty]);
  return html`
    <article class="chart-card" data-testid=${testid}>
      <header><strong>${title}</strong></header>
      <div class="chart-box">
        ${empty ? html`<p class="muted empty">No data in this range.</p>` : html`<canvas ref=${canvas} role="img" aria-label=${title}></canvas>`}
      </div>
    </article>
  `;
}
