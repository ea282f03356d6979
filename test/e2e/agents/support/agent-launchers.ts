/**
 * How each pinned coding agent is run non-interactively and offline against a gateway: its
 * command line, environment and config files in a private HOME, and the model names it sends
 * on its own (which the test gateway must route).
 *
 * Sources for the flags and variables:
 * - Claude Code: https://docs.anthropic.com/en/docs/claude-code/cli-reference and
 *   https://docs.anthropic.com/en/docs/claude-code/settings#environment-variables
 * - Codex CLI: https://developers.openai.com/codex/config-reference (model_providers,
 *   wire_api, env_key, analytics) and https://developers.openai.com/codex/cli/reference (`codex exec`)
 * - Gemini CLI: https://github.com/google-gemini/gemini-cli/blob/main/docs/get-started/configuration.md
 *   (settings.json: security.auth.selectedType, security.folderTrust, telemetry, privacy) and
 *   https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/headless.md (`-p`, `--yolo`)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The agents under test. */
export type AgentName = 'claude-code' | 'codex' | 'gemini-cli';

/** Where one run lives and what it talks to. */
export interface AgentRunContext {
  /** Private HOME (config, caches, sessions). */
  readonly home: string;
  /** Working directory the agent may read and run commands in. */
  readonly workspace: string;
  /** Origin the agent sends model requests to (`http://127.0.0.1:PORT`). */
  readonly gatewayOrigin: string;
  readonly apiKey: string;
  /** `--model`/`-m` value; undefined runs the agent's default model. */
  readonly model?: string;
  readonly prompt: string;
}

/** A process to spawn: command, arguments, full environment. */
export interface AgentCommand {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/** One agent's launch recipe and model names. */
export interface AgentLauncher {
  readonly name: AgentName;
  /**
   * Every model name the agent sends unprompted (main model, and side models such as Gemini
   * CLI's router model), read from the pinned versions' requests.
   */
  readonly defaultModels: ReadonlyArray<string>;
  /** A model to pass explicitly with `--model`/`-m`, different from the default. */
  readonly explicitModel: string;
  /**
   * Stderr lines that reveal a swallowed failure (the agent carries on, so exit code and output
   * alone would not show it), e.g. Gemini CLI's router falling back after an unusable answer.
   */
  readonly swallowedFailure?: RegExp;
  /** Writes config files under `context.home` and returns the command to run. */
  prepare(context: AgentRunContext): AgentCommand;
}

const BIN = fileURLToPath(new URL('../../../../node_modules/.bin/', import.meta.url));

/** The environment every agent gets: no inherited keys, proxies or telemetry endpoints. */
function baseEnvironment(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    TMPDIR: join(home, 'tmp'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CI: '1',
  };
}

const claudeCode: AgentLauncher = {
  name: 'claude-code',
  // Claude Code 2.1.330: default (opus) and the `sonnet`/`haiku` aliases.
  defaultModels: ['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5'],
  explicitModel: 'claude-sonnet-5-5',
  prepare(context) {
    mkdirSync(join(context.home, 'tmp'), { recursive: true });
    // Read-only tools run without asking in print mode; `--allowedTools` pre-approves the shell
    // tool too (bypassPermissions is refused when running as root).
    const args = [
      '-p',
      context.prompt,
      '--output-format',
      'json',
      '--allowedTools',
      'Read,LS,Glob,Grep,Bash(cat:*),Bash(ls:*)',
      ...(context.model ? ['--model', context.model] : []),
    ];
    return {
      command: join(BIN, 'claude'),
      args,
      env: {
        ...baseEnvironment(context.home),
        ANTHROPIC_BASE_URL: context.gatewayOrigin,
        ANTHROPIC_API_KEY: context.apiKey,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      },
    };
  },
};

const codex: AgentLauncher = {
  name: 'codex',
  // Codex 0.169.0's built-in default model.
  defaultModels: ['gpt-6.1-sol'],
  explicitModel: 'gpt-5.5',
  prepare(context) {
    const codexHome = join(context.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    mkdirSync(join(context.home, 'tmp'), { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model_provider = "tollgate"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.tollgate]',
        'name = "Tollgate"',
        `base_url = "${context.gatewayOrigin}/v1"`,
        'env_key = "TOLLGATE_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    const args = [
      'exec',
      '--skip-git-repo-check',
      '--dangerously-bypass-approvals-and-sandbox',
      '-C',
      context.workspace,
      ...(context.model ? ['-m', context.model] : []),
      context.prompt,
    ];
    return {
      command: join(BIN, 'codex'),
      args,
      env: { ...baseEnvironment(context.home), CODEX_HOME: codexHome, TOLLGATE_API_KEY: context.apiKey },
    };
  },
};

const geminiCli: AgentLauncher = {
  name: 'gemini-cli',
  // Gemini CLI 0.61.0: `auto` routes between pro and flash after a classifier call to flash-lite.
  defaultModels: ['gemini-3.1-pro-preview', 'gemini-3.8-flash', 'gemini-3.5-flash-lite'],
  // Not a flash model: 0.61 promotes any `-m <flash model>` to its latest flash (gemini-3.8-flash).
  explicitModel: 'gemini-2.5-pro',
  swallowedFailure: /\[Routing\][^\n]*failed[^\n]*/,
  prepare(context) {
    const settingsDir = join(context.home, '.gemini');
    mkdirSync(settingsDir, { recursive: true });
    mkdirSync(join(context.home, 'tmp'), { recursive: true });
    // An explicit auth type: with only GOOGLE_GEMINI_BASE_URL set, 0.61 infers a "gateway" auth
    // type that its own non-interactive validation then rejects.
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    };
    writeFileSync(join(settingsDir, 'settings.json'), JSON.stringify(settings, null, 2));
    const args = ['-p', context.prompt, '--yolo', ...(context.model ? ['-m', context.model] : [])];
    return {
      command: join(BIN, 'gemini'),
      args,
      env: {
        ...baseEnvironment(context.home),
        GEMINI_API_KEY: context.apiKey,
        GOOGLE_GEMINI_BASE_URL: context.gatewayOrigin,
        GEMINI_CLI_NO_RELAUNCH: 'true',
      },
    };
  },
};

/** The launcher of `name`. */
export function agentLauncher(name: AgentName): AgentLauncher {
  return { 'claude-code': claudeCode, codex, 'gemini-cli': geminiCli }[name];
}
