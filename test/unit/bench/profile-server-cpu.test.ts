import { describe, expect, it } from 'vitest';
import {
  formatCpuBreakdown,
  frameCategory,
  profileCategories,
  type CpuProfile,
} from '../../../test/bench/profile-server-cpu.ts';

describe('CPU breakdown of a bench server', () => {
  it('files each frame under its owner: our folders, packages, Node internals, natives', () => {
    expect(frameCategory('relayJson', 'file:///repo/gateway/exchange/relay-json.ts')).toBe(
      'Tollgate: gateway/exchange',
    );
    expect(frameCategory('x', 'file:///repo/dist/infra/event-log/file/appender.js')).toBe('Tollgate: infra/event-log');
    expect(frameCategory('parse', 'file:///repo/node_modules/@fastify/otel/index.js')).toBe('@fastify/otel');
    expect(frameCategory('request', 'file:///repo/node_modules/undici/lib/api/api-request.js')).toBe('undici');
    expect(frameCategory('emit', 'node:events')).toBe('Node.js internals');
    expect(frameCategory('writev', '')).toBe('socket and file I/O (native)');
    expect(frameCategory('parse', '')).toBe('JSON parse and stringify (native)');
    expect(frameCategory('(garbage collector)', '')).toBe('garbage collection');
    expect(frameCategory('(program)', '')).toMatch(/^V8 outside JavaScript/);
  });

  it('sums self time by category and leaves idle out', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(idle)', url: '' } },
        { id: 2, callFrame: { functionName: 'relayJson', url: 'file:///r/gateway/exchange/relay-json.ts' } },
        { id: 3, callFrame: { functionName: 'writev', url: '' } },
      ],
      samples: [1, 2, 3, 2],
      timeDeltas: [500, 100, 250, 150],
    };
    expect(Object.fromEntries(profileCategories(profile))).toEqual({
      'Tollgate: gateway/exchange': 250,
      'socket and file I/O (native)': 250,
    });
  });

  it('prints the floor, the gateway and the difference, largest difference first', () => {
    const text = formatCpuBreakdown(
      'chat',
      { requests: 10, totalUsPerRequest: 60, shares: [{ category: 'undici', usPerRequest: 10 }] },
      {
        requests: 10,
        totalUsPerRequest: 150,
        shares: [
          { category: 'undici', usPerRequest: 12 },
          { category: 'Tollgate: gateway/exchange', usPerRequest: 20 },
          { category: 'zod', usPerRequest: 0.5 },
        ],
      },
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe('chat: CPU per request, µs (floor 60, gateway alone 150)');
    expect(lines[1]).toMatch(/^ {2}Tollgate: gateway\/exchange +0\.0 +20\.0 \+20\.0$/);
    expect(lines[2]).toMatch(/^ {2}undici +10\.0 +12\.0 \+2\.0$/);
    expect(lines[3]).toMatch(/^ {2}1 more, under 1 µs each +0\.0 +0\.5 \+0\.5$/);
  });
});
