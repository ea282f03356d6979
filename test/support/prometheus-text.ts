/**
 * Reads the Prometheus text exposition format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format) for tests: every
 * sample with its name, labels and value, and the sum of the samples that match a name and labels.
 */

/** One sample line. */
export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g;

/** Every sample of `text` (comments and blank lines skipped). @throws Error on a line that is not a sample */
export function parsePrometheusText(text: string): PrometheusSample[] {
  const samples: PrometheusSample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a Prometheus sample: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Sum of the samples named `name` whose labels include `labels`; undefined when none matches. */
export function sampleSum(
  samples: ReadonlyArray<PrometheusSample>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  let sum: number | undefined;
  for (const sample of samples) {
    if (sample.name !== name) continue;
    if (Object.entries(labels).some(([key, value]) => sample.labels[key] !== value)) continue;
    sum = (sum ?? 0) + sample.value;
  }
  return sum;
}
