/**
 * Contract: the official Python SDKs' embedding calls (openai `embeddings.create`: a single string
 * with the SDK's default encoding, a batch with `dimensions` as floats, explicit base64;
 * google-genai `models.embed_content` with several contents and `output_dimensionality`) through
 * the gateway, against an OpenAI-style channel and a Gemini channel on the fake embeddings upstream
 * (test/support/embedding-upstream.ts). Runs the venv of the Python SDK matrix
 * (install-python-sdks.sh); skipped without it, except with CI=true, where it fails.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedVector, startEmbeddingUpstream, type EmbeddingUpstream } from '../support/embedding-upstream.ts';
import { startTestGateway, TEST_KEY, type TestGateway } from '../support/start-gateway.ts';
import { INSTALL_PYTHON_SDKS_COMMAND, PYTHON_SDK_VENV, pythonSdkState } from './python/python-case-runner.ts';

const SCRIPT = fileURLToPath(new URL('./python/embedding_cases.py', import.meta.url));
const UPSTREAM_KEY = 'python-embeddings-upstream-key';
const sdkState = pythonSdkState();
const inCi = process.env.CI === 'true';
if (sdkState !== 'ready' && !inCi)
  console.warn(`python embedding tests skipped: Python SDKs ${sdkState}; run ${INSTALL_PYTHON_SDKS_COMMAND}`);

interface ModelResults {
  single: number[][];
  batch: number[][];
  batch_tokens: number;
  base64: string[];
  genai: number[][];
}

/** Runs the script with `job` on stdin; resolves with its JSON output. */
function runScript(job: Record<string, string>): Promise<Record<string, ModelResults>> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${PYTHON_SDK_VENV}bin/python`, [SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(output) as Record<string, ModelResults>)
        : reject(new Error(`python exited ${code}: ${errors}`)),
    );
    child.stdin.end(JSON.stringify(job));
  });
}

/** The vector a base64 string of little-endian float32 holds. */
function fromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe.skipIf(sdkState !== 'ready' && !inCi)('Python SDK embeddings through the gateway', () => {
  let fake: EmbeddingUpstream;
  let gateway: TestGateway;
  let results: Record<string, ModelResults>;

  beforeAll(async () => {
    fake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
    gateway = await startTestGateway({
      channels: [
        {
          id: 'openai',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${fake.origin}/v1`,
          apiKey: UPSTREAM_KEY,
          modelMap: { 'py-openai': 'embed-large' },
        },
        {
          id: 'gemini',
          provider: 'gemini',
          protocol: 'gemini',
          baseUrl: fake.origin,
          apiKey: UPSTREAM_KEY,
          // No 'gemini' in the client's name: google-genai sends the contents of a model named
          // *gemini* (but gemini-embedding-001) as one multimodal content, one vector for all.
          modelMap: { 'py-gm': 'embed-large' },
        },
      ],
    });
    results = await runScript({
      origin: gateway.origin,
      key: TEST_KEY,
      openai_model: 'py-openai',
      gemini_model: 'py-gm',
    });
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it.each(['openai_model', 'gemini_model'])('%s: every call answers the upstream vectors', (model) => {
    const seen = results[model]!;
    expect(seen.single).toEqual([expectedVector('hello brave world', 16)]);
    expect(seen.batch).toEqual([expectedVector('one', 4), expectedVector('two three', 4)]);
    expect(seen.batch_tokens).toBeGreaterThan(0);
    expect(seen.base64.map(fromBase64)).toEqual([expectedVector('four', 16)]);
    expect(seen.genai).toEqual([expectedVector('first', 4), expectedVector('second', 4)]);
  });
});
