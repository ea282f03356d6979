/**
 * A seeded generator of hostile request bodies, derived from one valid body: a wrong-typed value
 * at every field (containers and leaves), and raw-text damage (truncation, invalid UTF-8, deep
 * nesting, too many members, over-long strings, trailing garbage, prototype-poisoning keys).
 * Deterministic for a given seed, so a failure names a case that can be replayed.
 */

/** One hostile body: a label that names the damage, and the bytes to send. */
export interface HostileBody {
  readonly label: string;
  readonly body: Buffer;
  /** True when no server may accept the body: the answer must be a 4xx. */
  readonly mustRefuse: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = ReadonlyArray<string | number>;

/** Values of every JSON type, plus text that token counters and decoders have tripped on. */
const WRONG_VALUES: ReadonlyArray<Json> = [
  null,
  0,
  -1,
  1.5e308,
  '',
  'x',
  '<|endoftext|><|fim_prefix|>',
  '\u0000\ud800',
  true,
  [],
  [null],
  [[[]]],
  {},
  { '': null },
];

function typeOf(value: Json): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Every path in `value` (the root excluded), parents before children. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  const paths: Path[] = [];
  if (Array.isArray(value)) {
    value.forEach((child, i) => paths.push([...prefix, i], ...pathsOf(child, [...prefix, i])));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) paths.push([...prefix, key], ...pathsOf(child, [...prefix, key]));
  }
  return paths;
}

function valueAt(root: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, root);
}

function withValueAt(root: Json, path: Path, value: Json): Json {
  const copy = structuredClone(root);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, Json>;
  parent[path[path.length - 1]!] = value;
  return copy;
}

/**
 * A wrong-typed value at every field of `valid`: for each path, `perField` values of other JSON
 * types, picked by `random` (the special-token string always among them for string fields).
 */
export function wrongTypeBodies(valid: Json, random: () => number, perField = 4): HostileBody[] {
  const bodies: HostileBody[] = [];
  for (const path of pathsOf(valid)) {
    const original = valueAt(valid, path);
    const candidates = WRONG_VALUES.filter((value) => typeOf(value) !== typeOf(original) || typeof value === 'string');
    const picked = new Set<Json>(typeof original === 'string' ? [WRONG_VALUES[6]!] : []);
    while (picked.size < Math.min(perField, candidates.length))
      picked.add(candidates[Math.floor(random() * candidates.length)]!);
    for (const value of picked) {
      bodies.push({
        label: `${path.join('.')} = ${JSON.stringify(value)}`,
        body: Buffer.from(JSON.stringify(withValueAt(valid, path, value))),
        mustRefuse: false,
      });
    }
  }
  return bodies;
}

/** `levels` nested arrays: `[[[…]]]`. */
export function nestedArrays(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

/** The valid body's JSON with `extra` spliced in as one more member `"hostile": <extra>`. */
function withMember(valid: Json, extra: string | Buffer): Buffer {
  const text = JSON.stringify(valid);
  return Buffer.concat([
    Buffer.from(`${text.slice(0, -1)},"hostile":`),
    Buffer.isBuffer(extra) ? extra : Buffer.from(extra),
    Buffer.from('}'),
  ]);
}

/**
 * Raw-text damage to `valid`: truncations at `cuts` seeded offsets, invalid UTF-8 inside and
 * outside strings, nesting 5,000 levels deep (in an extra member and at the root), an array of
 * 100,001 members, trailing garbage, a bare `__proto__` member, and a body that is not an object.
 */
export function damagedBodies(valid: Json, random: () => number, cuts = 6): HostileBody[] {
  const text = Buffer.from(JSON.stringify(valid));
  const bodies: HostileBody[] = [];
  for (let i = 0; i < cuts; i++) {
    const at = 1 + Math.floor(random() * (text.length - 2));
    bodies.push({ label: `truncated at byte ${at}`, body: text.subarray(0, at), mustRefuse: true });
  }
  bodies.push(
    { label: 'nesting 5000 levels in a member', body: withMember(valid, nestedArrays(5000)), mustRefuse: true },
    {
      label: 'nesting 5000 levels of objects',
      body: withMember(valid, '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)),
      mustRefuse: true,
    },
    { label: 'nesting 129 levels', body: withMember(valid, nestedArrays(128)), mustRefuse: true },
    { label: 'nesting 100000 levels, unterminated', body: Buffer.from('['.repeat(100_000)), mustRefuse: true },
    { label: 'an array of 100001 members', body: withMember(valid, `[${'0,'.repeat(100_000)}0]`), mustRefuse: true },
    {
      label: 'invalid UTF-8 inside a string',
      body: withMember(valid, Buffer.from([0x22, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x22])),
      mustRefuse: false,
    },
    { label: 'invalid UTF-8 outside strings', body: withMember(valid, Buffer.from([0xff, 0xfe])), mustRefuse: true },
    { label: 'trailing garbage', body: Buffer.concat([text, Buffer.from('}{"x":')]), mustRefuse: true },
    { label: 'a __proto__ member', body: withMember(valid, '{"__proto__":{"polluted":true}}'), mustRefuse: true },
    { label: 'an array body', body: Buffer.from(`[${text.toString()}]`), mustRefuse: true },
    { label: 'a string body', body: Buffer.from('"hello"'), mustRefuse: true },
    { label: 'an empty body', body: Buffer.alloc(0), mustRefuse: true },
  );
  return bodies;
}
