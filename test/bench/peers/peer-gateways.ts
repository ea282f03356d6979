/**
 * How `npm run bench:peers` installs and starts each peer gateway, and what it sends them:
 * - Portkey's OSS gateway (npm `@portkey-ai/gateway`, a Hono server on Node), installed with
 *   `npm install --prefix <dir>`, run as `node <its bin> --port=<free port> --headless`, routed to
 *   the mock with its `x-portkey-provider: openai` and `x-portkey-custom-host` headers
 *   (an OpenAI-compatible server is provider `openai` with a custom host, version path included:
 *   https://portkey.ai/docs/integrations/llms/vllm, https://portkey.ai/docs/integrations/llms/byollm);
 * - the LiteLLM proxy (PyPI `litellm[proxy]`), installed into a venv, run as
 *   `litellm --config <yaml> --port <free port> --num_workers 1` with one model_list entry mapping
 *   the bench model to `openai/<model>` at the mock (https://docs.litellm.ai/docs/proxy/configs).
 * Installs go to a cache directory under the OS temporary directory (never the repository, never
 * global), one per peer and version, reused while its completion marker matches what is asked for.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { MOCK_BEHAVIOUR_PREFIX, type BenchShapeId } from '../bench-cases.ts';
import { BENCH_MODEL } from '../bench-server-contract.ts';
import { withoutEngineVariables } from '../../support/spawn-gateway.ts';
import type { PeerTarget } from './peer-cases.ts';
import { runInstallCommand } from './run-install-command.ts';
import { freePort } from '../../support/free-port.ts';
import { spawnPeerProcess, type PeerProcess } from './spawn-peer-process.ts';

/** Where peer installs are kept between runs: `<os tmpdir>/tollgate-bench-peers-cache/<peer>-<version>-<hash of the specs>/`. */
export const PEER_CACHE_DIR = join(tmpdir(), 'tollgate-bench-peers-cache');

/** Default Portkey gateway version (BENCH_PORTKEY_VERSION overrides). */
export const DEFAULT_PORTKEY_VERSION = '1.15.2';

/**
 * npm packages installed next to `@portkey-ai/gateway` (BENCH_PORTKEY_PINS overrides; empty: none):
 * the versions of its own lockfile for 1.15.2
 * (https://github.com/Portkey-AI/gateway/blob/v1.15.2/package-lock.json). The package declares
 * `@hono/node-server ^1.3.3`, so a plain install takes the newest 1.x, whose Response keeps the
 * upstream's immutable headers, and every streamed answer fails with `TypeError: immutable` in
 * Portkey's header update (https://github.com/Portkey-AI/gateway/blob/v1.15.2/src/handlers/services/responseService.ts).
 */
export const DEFAULT_PORTKEY_PINS = '@hono/node-server@1.13.5 @hono/node-ws@1.2.0';

/** Default LiteLLM version (BENCH_LITELLM_VERSION overrides). */
export const DEFAULT_LITELLM_VERSION = '1.100.5';

/** An installed peer: where, and what was installed. */
export interface InstalledPeer {
  readonly dir: string;
  /** What the install command asked for, e.g. `@portkey-ai/gateway@1.15.2 @hono/node-server@1.13.5 …`. */
  readonly spec: string;
  /** Whether this run reused an earlier install from the cache. */
  readonly cached: boolean;
  /** Seconds the install took (0 when cached). */
  readonly installSeconds: number;
}

/** A started peer, ready for requests. */
export interface StartedPeer extends PeerProcess {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
}

/** Where a started peer writes its config and log: a per-run temporary directory. */
export interface PeerStartOptions {
  /** The mock upstream's `http://127.0.0.1:PORT`. */
  readonly mockOrigin: string;
  /** taskset CPU list, as for the bench's own servers. */
  readonly cpuList?: string;
  readonly runDir: string;
}

/** One peer gateway: its identity, install, start-up, the headers its clients send, and the shapes it cannot serve. */
export interface PeerGateway {
  readonly target: PeerTarget;
  /** e.g. `Portkey` */
  readonly name: string;
  readonly version: string;
  /** What is installed (package specs). */
  readonly spec: string;
  /** Installs into (or reuses) its cache directory. @throws Error naming the failed command and its last error line */
  install(): Promise<InstalledPeer>;
  /** Starts it on a free port. @throws Error when it exits or is not ready in time */
  start(installed: InstalledPeer, options: PeerStartOptions): Promise<StartedPeer>;
  /** Headers added to every case's own (routing to the mock). */
  extraHeaders(mockOrigin: string): Readonly<Record<string, string>>;
  /** Shapes it cannot serve against an OpenAI-compatible upstream, with the reason. */
  readonly notServed: Readonly<Partial<Record<BenchShapeId, string>>>;
  /** Facts about the peer that bear on its figures, printed under the tables. */
  readonly notes: ReadonlyArray<string>;
}

/** The mock's OpenAI-compatible base URL, behaviour prefix included (as Tollgate's bench channel uses it). */
const mockApiBase = (mockOrigin: string): string => `${mockOrigin}${MOCK_BEHAVIOUR_PREFIX}/v1`;

const MARKER = 'tollgate-bench-installed.json';

/**
 * Runs `install` in `dir` unless its marker records `spec`; a directory without a matching marker
 * (an install that did not finish) is removed first, and so is `dir` when `install` fails. The
 * marker is written last.
 */
async function cachedInstall(dir: string, spec: string, install: () => Promise<void>): Promise<InstalledPeer> {
  const marker = join(dir, MARKER);
  try {
    if ((JSON.parse(readFileSync(marker, 'utf8')) as { spec?: string }).spec === spec)
      return { dir, spec, cached: true, installSeconds: 0 };
  } catch {
    // no marker: not installed, or not completely
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const startedAt = Date.now();
  try {
    await install();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true }); // nothing half-installed stays in the cache
    throw error;
  }
  writeFileSync(marker, JSON.stringify({ spec, installedAt: new Date().toISOString() }));
  return { dir, spec, cached: false, installSeconds: Math.round((Date.now() - startedAt) / 1000) };
}

/** The cache directory of `peer` at `version` installed from `spec`: one per spec, so other pins do not evict it. */
const cacheDir = (peer: PeerTarget, version: string, spec: string): string =>
  join(
    PEER_CACHE_DIR,
    `${peer}-${version.replace(/[^A-Za-z0-9._-]/g, '_')}-${createHash('sha256').update(spec).digest('hex').slice(0, 8)}`,
  );

/** The path of the package's `bin` script (package.json `bin`, a string or its first entry). @throws Error when absent */
function packageBin(packageDir: string): string {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`${packageDir}/package.json names no bin script`);
  return join(packageDir, bin);
}

/** The environment of a peer: this process's, without the engine variables Tollgate's children drop, nor a database URL. */
const peerEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...withoutEngineVariables(process.env, ['DATABASE_URL']),
  ...extra,
});

function portkey(env: NodeJS.ProcessEnv): PeerGateway {
  const version = env.BENCH_PORTKEY_VERSION?.trim() || DEFAULT_PORTKEY_VERSION;
  const pins = (env.BENCH_PORTKEY_PINS ?? DEFAULT_PORTKEY_PINS).split(/\s+/).filter((p) => p !== '');
  const packages = [`@portkey-ai/gateway@${version}`, ...pins];
  const spec = packages.join(' ');
  const dir = cacheDir('portkey', version, spec);
  return {
    target: 'portkey',
    name: 'Portkey',
    version,
    spec,
    install: () =>
      cachedInstall(dir, spec, () =>
        // --ignore-scripts: its only install script is patch-package, and the npm package ships no patches.
        runInstallCommand({
          command: 'npm',
          args: ['install', '--prefix', dir, '--no-audit', '--no-fund', '--ignore-scripts', ...packages],
          cwd: dir,
          env: process.env,
          logFile: join(dir, 'install.log'),
          timeoutMs: 300_000,
        }),
      ),
    start: async (installed, options) => {
      const port = await freePort();
      // The server takes its port as `--port=N` and serves its console UI unless `--headless`
      // (https://github.com/Portkey-AI/gateway/blob/v1.15.2/src/start-server.ts).
      const peer = await spawnPeerProcess({
        name: `Portkey ${version}`,
        command: process.execPath,
        args: [
          packageBin(join(installed.dir, 'node_modules', '@portkey-ai', 'gateway')),
          `--port=${port}`,
          '--headless',
        ],
        cwd: installed.dir,
        env: peerEnv({}),
        ...(options.cpuList === undefined ? {} : { cpuList: options.cpuList }),
        logFile: join(options.runDir, 'portkey.log'),
        readyUrl: `http://127.0.0.1:${port}/`,
        timeoutMs: 60_000,
      });
      return { ...peer, origin: `http://127.0.0.1:${port}` };
    },
    extraHeaders: (mockOrigin) => ({
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': mockApiBase(mockOrigin),
    }),
    notServed: {
      anthropic:
        'Portkey\'s /v1/messages serves only providers with a native Messages API; for provider openai it answers 500 "messages is not supported by openai"',
      'anthropic-stream':
        'Portkey\'s /v1/messages serves only providers with a native Messages API; for provider openai it answers 500 "messages is not supported by openai"',
    },
    notes: [
      'Portkey waits 25 ms before it forwards the first event of a stream (https://github.com/Portkey-AI/gateway/blob/v1.15.2/src/handlers/streamHandler.ts), which shows in its streamed latency.',
    ],
  };
}

/**
 * uvicorn's logging config for LiteLLM (https://www.uvicorn.org/settings/#logging): warnings and
 * errors only, so the peer does not write an access-log line per request (Tollgate and the floor log none).
 */
const UVICORN_QUIET_LOG_CONFIG = {
  version: 1,
  disable_existing_loggers: false,
  formatters: { plain: { format: '%(levelname)s %(name)s: %(message)s' } },
  handlers: { stderr: { class: 'logging.StreamHandler', formatter: 'plain', stream: 'ext://sys.stderr' } },
  loggers: {
    uvicorn: { handlers: ['stderr'], level: 'WARNING', propagate: false },
    'uvicorn.error': { handlers: ['stderr'], level: 'WARNING', propagate: false },
    'uvicorn.access': { handlers: ['stderr'], level: 'WARNING', propagate: false },
  },
} as const;

/**
 * LiteLLM's environment: errors only, no telemetry, and every file it would otherwise fetch from
 * GitHub at start-up read from the copy in the package instead: the model cost map
 * (https://docs.litellm.ai/docs/proxy/model_cost_map; LITELLM_LOCAL_MODEL_COST_MAP, read in
 * https://github.com/BerriAI/litellm/blob/main/litellm/litellm_core_utils/get_model_cost_map.py),
 * and the Anthropic beta-header, blog-post and policy-template lists, each behind its own
 * LITELLM_LOCAL_* switch in the same package.
 */
const LITELLM_ENV = {
  LITELLM_LOG: 'ERROR',
  LITELLM_LOCAL_MODEL_COST_MAP: 'True',
  LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS: 'True',
  LITELLM_LOCAL_BLOG_POSTS: 'True',
  LITELLM_LOCAL_POLICY_TEMPLATES: 'True',
} as const;

function litellm(env: NodeJS.ProcessEnv): PeerGateway {
  const version = env.BENCH_LITELLM_VERSION?.trim() || DEFAULT_LITELLM_VERSION;
  const python = env.BENCH_PYTHON?.trim() || 'python3';
  const spec = `litellm[proxy]==${version}`;
  const dir = cacheDir('litellm', version, spec);
  const venv = join(dir, 'venv');
  return {
    target: 'litellm',
    name: 'LiteLLM',
    version,
    spec,
    install: () =>
      cachedInstall(dir, spec, async () => {
        const logFile = join(dir, 'install.log');
        await runInstallCommand({
          command: python,
          args: ['-m', 'venv', venv],
          cwd: dir,
          env: process.env,
          logFile,
          timeoutMs: 120_000,
        });
        await runInstallCommand({
          command: join(venv, 'bin', 'pip'),
          args: ['install', '--disable-pip-version-check', '--no-input', spec],
          cwd: dir,
          env: { ...process.env, PIP_NO_INPUT: '1' },
          logFile,
          timeoutMs: 900_000,
        });
      }),
    start: async (installed, options) => {
      const port = await freePort();
      const config = join(options.runDir, 'litellm-config.yaml');
      const logConfig = join(options.runDir, 'litellm-log-config.json');
      writeFileSync(
        config,
        stringifyYaml({
          model_list: [
            {
              model_name: BENCH_MODEL,
              litellm_params: {
                model: `openai/${BENCH_MODEL}`,
                api_base: mockApiBase(options.mockOrigin),
                api_key: 'sk-bench-upstream',
              },
            },
          ],
          litellm_settings: { telemetry: false },
        }),
      );
      writeFileSync(logConfig, JSON.stringify(UVICORN_QUIET_LOG_CONFIG));
      const bin = join(installed.dir, 'venv', 'bin', 'litellm');
      if (!existsSync(bin)) throw new Error(`${bin} is missing (remove ${installed.dir} to reinstall)`);
      // https://docs.litellm.ai/docs/proxy/cli: --config, --host, --port, --num_workers, --telemetry, --log_config.
      const peer = await spawnPeerProcess({
        name: `LiteLLM ${version}`,
        command: bin,
        args: [
          '--config',
          config,
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--num_workers',
          '1',
          '--telemetry',
          'False',
          '--log_config',
          logConfig,
        ],
        cwd: options.runDir,
        env: peerEnv(LITELLM_ENV),
        ...(options.cpuList === undefined ? {} : { cpuList: options.cpuList }),
        logFile: join(options.runDir, 'litellm.log'),
        readyUrl: `http://127.0.0.1:${port}/health/liveliness`,
        readyStatus: 200,
        timeoutMs: 180_000,
      });
      return { ...peer, origin: `http://127.0.0.1:${port}` };
    },
    extraHeaders: () => ({}),
    notServed: {},
    notes: ['LiteLLM runs one uvicorn worker process (--num_workers 1), the same one core as every other server.'],
  };
}

/** Both peers, versions and pins from BENCH_PORTKEY_VERSION, BENCH_PORTKEY_PINS, BENCH_LITELLM_VERSION, BENCH_PYTHON. */
export function peerGateways(env: NodeJS.ProcessEnv): PeerGateway[] {
  return [portkey(env), litellm(env)];
}
