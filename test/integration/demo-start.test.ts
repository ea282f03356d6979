/**
 * `npm start` with no configuration: the gateway starts with the built-in demo channel (mock
 * provider) and answers the demo key at once. Runs the real entry point in a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let child: ChildProcess;
let origin = '';

beforeAll(async () => {
  // No infrastructure at all: embedded file log, memory state, chdb, consumers in-process.
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', TOLLGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'tollgate-demo-')) };
  for (const name of ['TOLLGATE_CONFIG', 'KAFKA_BROKERS', 'REDIS_URL', 'CLICKHOUSE_URL', 'TOLLGATE_CONSUMERS']) delete env[name];
  child = spawn(process.execPath, ['--import', 'tsx', 'gateway/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  origin = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no banner in time: ${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /running at (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${output}`)));
  });
});

afterAll(() => {
  if (child?.pid) process.kill(child.pid, 'SIGTERM');
});

describe('npm start (demo mode)', () => {
  it('answers the demo key through the mock channel, streamed and not', async () => {
    const client = new OpenAI({ apiKey: 'sk-tollgate-demo', baseURL: `${origin}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'mock-1', messages: [{ role: 'user', content: 'Hello' }] });
    expect(completion.choices[0]?.message.content).toBe('Mock reply to: Hello');
    const streamed = await client.chat.completions.stream({ model: 'mock-1', messages: [{ role: 'user', content: 'Hello again' }] }).finalChatCompletion();
    expect(streamed.choices[0]?.message.content).toBe('Mock reply to: Hello again');
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('mock-1');
  });

  it('reports health', async () => {
    const response = await fetch(`${origin}/healthz`);
    expect(await response.json()).toMatchObject({ status: 'ok', channels: 1 });
  });
});
