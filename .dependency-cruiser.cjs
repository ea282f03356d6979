/**
 * The layer rules of Tollgate, checked by `npm run lint` (dependency-cruiser,
 * https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md).
 * ARCHITECTURE.md draws the same layers; change both together.
 *
 * Paths are relative to the repository root. Only the four source folders are cruised
 * (gateway/, consumers/, schemas/, infra/); tests may import anything and are not checked.
 * Type-only imports count: a type is a dependency like a value (`tsPreCompilationDeps`).
 * There are no per-file exceptions: a rule that must bend is changed here, with its reason.
 */

/** Our own code, as opposed to npm packages and node's built-in modules. */
const OURS = '^(gateway|consumers|schemas|infra)/';

/**
 * The gateway's folders from the bottom up. A module may import folders of a lower rank
 * (and its own folder); importing a folder of a higher rank is an upward import. Folders of
 * one rank may import each other one way only (the folder-cycle rule catches both ways);
 * inbound/ and upstream/ are further bound by their own rules below.
 */
const GATEWAY_RANKS = [
  ['canonical'],
  ['providers', 'lifecycle', 'tokenize'],
  ['inbound', 'upstream'],
  ['config', 'routing'],
  ['control-plane'],
  ['policy'],
  ['exchange'],
  ['events', 'metrics', 'http'],
  ['responses-api'],
  ['console', 'cli', 'mock'],
];

/** One rule per rank: nothing at that rank imports a gateway folder ranked above it, nor the gateway's root files. */
const upwardImportRules = GATEWAY_RANKS.slice(0, -1).map((folders, rank) => ({
  name: `gateway-no-upward-import-from-${folders.join('-')}`,
  comment:
    `gateway/{${folders.join(',')}}/ sit below ${GATEWAY_RANKS.slice(rank + 1)
      .flat()
      .join(', ')} and the gateway's composition files (gateway/*.ts): ` +
    'a lower layer is called through a parameter or a port, never by importing its caller.',
  severity: 'error',
  from: { path: `^gateway/(${folders.join('|')})/` },
  to: {
    path: `^gateway/((${GATEWAY_RANKS.slice(rank + 1)
      .flat()
      .join('|')})/|[^/]+\\.ts$)`,
  },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // ── contracts, processes and engines ─────────────────────────────────────────────
    {
      name: 'schemas-contracts-only',
      comment:
        'schemas/ holds contracts (Avro schemas and types, topics, tables, ports, DDL, pure folds): ' +
        'it imports nothing outside schemas/, so every process can depend on it.',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: OURS, pathNot: '^schemas/' },
    },
    {
      name: 'gateway-not-consumers-or-infra',
      comment:
        'The gateway depends on schemas/ only; adapters are handed to it by its composition root ' +
        '(infra/processes/), and it never shares code with the consumers except through schemas/.',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: '^(consumers|infra)/' },
    },
    {
      name: 'consumers-not-gateway-or-infra',
      comment:
        'A consumer is a pure fold and an idempotent sink over the ports in schemas/; its adapters come from its root.',
      severity: 'error',
      from: { path: '^consumers/' },
      to: { path: '^(gateway|infra)/' },
    },
    {
      name: 'infra-adapters-not-processes',
      comment:
        'infra/ adapters (one folder per port) and engine scripts implement the ports of schemas/; only the ' +
        'composition roots in infra/processes/ import gateway/ and consumers/ and wire them to the adapters.',
      severity: 'error',
      from: { path: '^infra/', pathNot: '^infra/processes/' },
      to: { path: '^(gateway|consumers|infra/processes)/' },
    },
    // ── the N+M translation hub ──────────────────────────────────────────────────────
    {
      name: 'canonical-imports-nothing',
      comment: 'gateway/canonical/ is the hub every codec and adapter translates to: it imports none of our code.',
      severity: 'error',
      from: { path: '^gateway/canonical/' },
      to: { path: OURS, pathNot: '^gateway/canonical/' },
    },
    {
      name: 'providers-only-canonical',
      comment:
        'gateway/providers/ is data (presets, auth schemes, the mock URL scheme): it may import canonical/ only.',
      severity: 'error',
      from: { path: '^gateway/providers/' },
      to: { path: OURS, pathNot: '^gateway/(canonical|providers)/' },
    },
    {
      name: 'inbound-codec-sees-no-provider',
      comment:
        'A client-format codec (gateway/inbound/<format>/) imports canonical/, providers/, the codec port and ' +
        'helpers at gateway/inbound/*.ts, openai-common/ and its own folder: no other format, no upstream protocol, ' +
        'no pipeline.',
      severity: 'error',
      from: { path: '^gateway/inbound/([^/]+)/' },
      to: {
        path: OURS,
        pathNot: [
          '^gateway/(canonical|providers)/',
          '^gateway/inbound/[^/]+\\.ts$',
          '^gateway/inbound/(openai-common|$1)/',
        ],
      },
    },
    {
      name: 'inbound-port-sees-no-format',
      comment:
        "The codec port and helpers at gateway/inbound/*.ts know no format's features: canonical/ and providers/ only.",
      severity: 'error',
      from: { path: '^gateway/inbound/[^/]+\\.ts$' },
      to: { path: OURS, pathNot: ['^gateway/(canonical|providers)/', '^gateway/inbound/[^/]+\\.ts$'] },
    },
    {
      name: 'upstream-adapter-sees-no-inbound-format',
      comment:
        'An upstream protocol adapter (gateway/upstream/<protocol>/) imports canonical/, providers/, the adapter ' +
        'port at gateway/upstream/*.ts, upstream/shared/ and its own folder: no other protocol, no client format.',
      severity: 'error',
      from: { path: '^gateway/upstream/([^/]+)/' },
      to: {
        path: OURS,
        pathNot: ['^gateway/(canonical|providers)/', '^gateway/upstream/[^/]+\\.ts$', '^gateway/upstream/(shared|$1)/'],
      },
    },
    {
      name: 'upstream-port-sees-no-protocol',
      comment:
        'The adapter port and transport at gateway/upstream/*.ts import canonical/, providers/ and upstream/shared/ only.',
      severity: 'error',
      from: { path: '^gateway/upstream/[^/]+\\.ts$' },
      to: { path: OURS, pathNot: ['^gateway/(canonical|providers)/', '^gateway/upstream/([^/]+\\.ts$|shared/)'] },
    },
    // ── the gateway's layers ─────────────────────────────────────────────────────────
    ...upwardImportRules,
    {
      name: 'mock-only-from-roots',
      comment:
        'The mock provider is started by a composition root (infra/processes/, gateway/*.ts); routing and the ' +
        'pipeline know only its URL scheme, which lives in providers/.',
      severity: 'error',
      from: { path: OURS, pathNot: ['^infra/processes/', '^gateway/[^/]+\\.ts$', '^gateway/mock/'] },
      to: { path: '^gateway/mock/' },
    },
    // ── no loops ─────────────────────────────────────────────────────────────────────
    {
      name: 'no-folder-cycles',
      comment: 'Folders form a directed graph: when a imports b, nothing in b leads back to a.',
      severity: 'error',
      scope: 'folder',
      from: { path: OURS },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      comment: 'Modules form a directed graph too: a cycle makes the import order decide what is initialised.',
      severity: 'error',
      from: { path: OURS },
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every relative import resolves to a file (the browser console imports its vendored bundle by URL).',
      severity: 'error',
      from: { path: OURS, pathNot: '^gateway/console/web/' },
      to: { couldNotResolve: true, pathNot: '^gpt-tokenizer/|^tsx/' },
    },
  ],
  options: {
    includeOnly: OURS,
    exclude: { path: ['\\.test\\.ts$', '(^|/)node_modules/'] },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs'],
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
