/**
 * Runs the Python SDK contract cases (openai_cases.py, anthropic_cases.py, genai_cases.py) from
 * vitest: one Python process per SDK in `--batch` mode, fed every job as a JSON line, answering one
 * JSON line per job as it finishes (cases run concurrently on the process's thread pool), so
 * Python's start-up is paid three times per suite rather than once per case.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The folder of the case scripts and requirements.txt. */
export const PYTHON_CASES_DIR = fileURLToPath(new URL('./', import.meta.url));
/** The venv made by install-python-sdks.sh. */
export const PYTHON_SDK_VENV = fileURLToPath(new URL('../../../.tollgate/python-sdks/', import.meta.url));
/** What a developer runs to install the SDKs (from the repository root). */
export const INSTALL_PYTHON_SDKS_COMMAND = 'test/contract/python/install-python-sdks.sh';

/** The three official SDKs and their case scripts. */
export const PYTHON_SDK_SCRIPTS = {
  openai: 'openai_cases.py',
  anthropic: 'anthropic_cases.py',
  genai: 'genai_cases.py',
} as const;
export type PythonSdk = keyof typeof PYTHON_SDK_SCRIPTS;

/** One case to run. `tag` is written into the prompt and tool results, to find its upstream requests. */
export interface PythonCaseJob {
  readonly id: string;
  readonly case: string;
  readonly url: string;
  readonly key: string;
  readonly model: string;
  readonly followupModel?: string;
  readonly tag: string;
}

/** What the SDK raised, as described by sdk_case_runner.describe_error. */
export interface PythonSdkError {
  readonly class: string;
  readonly module?: string;
  readonly bases?: string[];
  readonly status?: number | null;
  readonly statusText?: string | null;
  readonly type?: string | null;
  readonly message: string;
  readonly traceback?: string;
}

/** The outcome of one case: the values the SDK parsed, or the error it raised. */
export type PythonCaseOutcome =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  | { readonly ok: false; readonly error: PythonSdkError };

/**
 * Whether the venv holds the SDKs of the current requirements.txt: `ready`, `missing` (never
 * installed) or `stale` (installed from another requirements.txt; the install script writes the
 * hash it installed into `requirements.sha256`).
 */
export function pythonSdkState(): 'ready' | 'missing' | 'stale' {
  const python = `${PYTHON_SDK_VENV}bin/python`;
  const stamp = `${PYTHON_SDK_VENV}requirements.sha256`;
  if (!existsSync(python) || !existsSync(stamp)) return 'missing';
  const wanted = createHash('sha256')
    .update(readFileSync(`${PYTHON_CASES_DIR}requirements.txt`))
    .digest('hex');
  return readFileSync(stamp, 'utf8').trim() === wanted ? 'ready' : 'stale';
}

/**
 * Starts one batch process for `sdk` with `jobs` and returns each job's outcome as a promise, keyed
 * by job id. A job the process never answers (it crashed) rejects with the process's stderr.
 */
export function runPythonCases(
  sdk: PythonSdk,
  jobs: ReadonlyArray<PythonCaseJob>,
): Map<string, Promise<PythonCaseOutcome>> {
  const settlers = new Map<string, { resolve: (outcome: PythonCaseOutcome) => void; reject: (error: Error) => void }>();
  const outcomes = new Map<string, Promise<PythonCaseOutcome>>();
  for (const job of jobs) {
    outcomes.set(job.id, new Promise((resolve, reject) => settlers.set(job.id, { resolve, reject })));
    // A rejection is observed by the test that awaits it; this keeps an unawaited one from being reported as unhandled.
    outcomes.get(job.id)?.catch(() => undefined);
  }
  const child = spawn(`${PYTHON_SDK_VENV}bin/python`, [PYTHON_SDK_SCRIPTS[sdk], '--batch'], {
    cwd: PYTHON_CASES_DIR,
    env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const answer = JSON.parse(line) as { id: string } & PythonCaseOutcome;
    const { id, ...outcome } = answer;
    settlers.get(id)?.resolve(outcome);
    settlers.delete(id);
  });
  const failRemaining = (reason: string): void => {
    for (const [id, settler] of settlers)
      settler.reject(new Error(`${PYTHON_SDK_SCRIPTS[sdk]} gave no answer for ${id}: ${reason}\n${stderr}`));
    settlers.clear();
  };
  child.on('error', (error) => failRemaining(error.message));
  child.on('close', (code, signal) => failRemaining(`exited with ${signal ?? code}`));
  child.stdin.end(jobs.map((job) => JSON.stringify(job)).join('\n') + '\n');
  return outcomes;
}
