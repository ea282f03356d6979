/**
 * `npx tsx test/bench/measure-token-counting.ts`: CPU cost of local token counting
 * (gateway/tokenize/bounded-token-counter.ts) per kind of text, in µs per KiB of UTF-8, and the
 * whole cost of one hostile 4 MiB body with the default exact budget. The library's own
 * `countTokens` on the whole string is shown beside it where it finishes in reasonable time (on a
 * run of one character it is quadratic: minutes at 4 MiB). Prints a table; asserts nothing.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { BoundedTokenCounter } from '../../gateway/tokenize/bounded-token-counter.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ORDINARY = { disallowedSpecial: new Set<string>() };
const KIB = 1024;
const MIB = 1024 * KIB;

function randomText(length: number, alphabet: string): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(Math.random() * alphabet.length)];
  return text;
}

/** CPU milliseconds of `run`, the least of `repeats` runs (each on a fresh input from `make`). */
function cpuMs(make: () => string, run: (text: string) => void, repeats = 3): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < repeats; i++) {
    const text = make();
    const start = process.cpuUsage();
    run(text);
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const THAI = 'กขคงจฉชซญดตถทนบปผพฟภมยรลวศสหอฮะาิีึืุูเแโใไ';
const HAN = '的一是不了人我在有他这中大来上个国到说们为子和你地出道也时年就那要下以生会自着去之过家后可能对';
const readme = readFileSync(`${ROOT}README.md`, 'utf8');
const code = ['gateway/app.ts', 'gateway/exchange/run-exchange.ts', 'gateway/exchange/serve-generation.ts']
  .map((path) => readFileSync(ROOT + path, 'utf8'))
  .join('\n');

const kinds: Array<{ name: string; make: () => string; library: boolean }> = [
  { name: 'prose (README)', make: () => readme, library: true },
  { name: 'TypeScript source', make: () => code, library: true },
  {
    name: 'base64, 48 KiB',
    make: () =>
      Buffer.from(randomText(36 * KIB, LOWER + THAI))
        .toString('base64')
        .slice(0, 48 * KIB),
    library: true,
  },
  { name: 'random letters, 48 KiB', make: () => randomText(48 * KIB, LOWER), library: true },
  { name: 'random Thai, 16 Ki chars', make: () => randomText(16 * KIB, THAI), library: true },
  { name: 'random Han, 16 Ki chars', make: () => randomText(16 * KIB, HAN), library: true },
  { name: "'a' run, 16 KiB", make: () => 'a'.repeat(16 * KIB), library: true },
  { name: "'a' run, 64 KiB", make: () => 'a'.repeat(64 * KIB), library: true },
];

for (let i = 0; i < 3; i++)
  new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(readme + randomText(20 * KIB, `${LOWER}  `));

console.log('exact counting (no budget), CPU µs per KiB of UTF-8');
console.log(`${'text'.padEnd(28)}${'bounded'.padStart(10)}${'library'.padStart(10)}`);
for (const kind of kinds) {
  const kib = Buffer.byteLength(kind.make()) / KIB;
  const bounded = cpuMs(kind.make, (text) => new BoundedTokenCounter(Number.POSITIVE_INFINITY).count(text)) / kib;
  const library = kind.library ? cpuMs(kind.make, (text) => countTokens(text, ORDINARY), 1) / kib : Number.NaN;
  console.log(
    `${kind.name.padEnd(28)}${(bounded * 1000).toFixed(0).padStart(10)}${(library * 1000).toFixed(0).padStart(10)}`,
  );
}

console.log('\none 4 MiB body with the default exact budget, CPU ms');
const bodies: Array<{ name: string; make: () => string }> = [
  { name: "'a' run", make: () => 'a'.repeat(4 * MIB) },
  { name: "'e' + U+0301 run", make: () => 'e\u0301'.repeat(2 * MIB) },
  { name: 'random letters', make: () => randomText(4 * MIB, LOWER) },
  { name: 'random Thai', make: () => randomText((4 * MIB) / 3, THAI) },
  { name: 'random Han', make: () => randomText((4 * MIB) / 3, HAN) },
  { name: 'prose (README × 80)', make: () => readme.repeat(80).slice(0, 4 * MIB) },
];
for (const body of bodies)
  console.log(
    `${body.name.padEnd(28)}${cpuMs(body.make, (text) => new BoundedTokenCounter().count(text))
      .toFixed(1)
      .padStart(10)}`,
  );
