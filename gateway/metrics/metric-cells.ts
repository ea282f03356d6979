/**
 * Counters and gauges whose request-path updates are plain additions to a number. A prom-client
 * child (`counter.labels(...).inc()`) hashes and validates its labels on every call (≈300 ns); a
 * cell is a cached `{ value }` the caller adds to, and the family copies every cell into its
 * prom-client metric when scraped, in the metric's `collect`
 * (https://github.com/siimon/prom-client#custom-metrics-and-collect). The scrape output is the
 * same Prometheus counter or gauge.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** One series: add to `value` (a counter's only grows; a gauge's goes both ways). */
export interface MetricCell {
  value: number;
}

/** A family of cells published as one prom-client Counter or Gauge. */
export class MetricCells<L extends string> {
  private readonly cells: Array<{ readonly labels: Partial<Record<L, string>>; readonly cell: MetricCell }> = [];

  /**
   * Registers the family on `registry` as a `kind` metric named `name` (Prometheus naming:
   * https://prometheus.io/docs/practices/naming/) with these label names.
   */
  constructor(
    registry: Registry,
    kind: 'counter' | 'gauge',
    config: { readonly name: string; readonly help: string; readonly labelNames: readonly L[] },
  ) {
    const cells = this.cells;
    const base = { ...config, registers: [registry] };
    if (kind === 'counter') {
      new Counter<L>({
        ...base,
        collect() {
          this.reset();
          for (const { labels, cell } of cells) if (cell.value > 0) this.inc(labels, cell.value);
        },
      });
    } else {
      new Gauge<L>({
        ...base,
        collect() {
          for (const { labels, cell } of cells) this.set(labels, cell.value);
        },
      });
    }
  }

  /** Cells held (each a series of the scrape): it grows with every `cell` call. */
  get size(): number {
    return this.cells.length;
  }

  /** A new cell for `labels` (label name → value). Cache it: every call adds a series. */
  cell(labels: Partial<Record<L, string>>): MetricCell {
    const cell: MetricCell = { value: 0 };
    this.cells.push({ labels, cell });
    return cell;
  }
}
