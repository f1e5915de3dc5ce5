import { describe, expect, it } from 'vitest';
import { principalResolver } from '../../src/herald/principal.js';
import type { Me } from '../../src/herald/types.js';
import { Metrics } from '../../src/metrics.js';

describe('principalResolver', () => {
  it('uses the configured principal without calling Herald', async () => {
    const resolve = principalResolver({ me: () => Promise.reject(new Error('no call expected')) }, 'tok_set');
    await expect(resolve()).resolves.toBe('tok_set');
  });

  it('asks GET /api/v1/me once, and again after a failure', async () => {
    let calls = 0;
    const client = {
      async me(): Promise<Me> {
        calls += 1;
        if (calls === 1) throw new Error('down');
        return { principal: 'tok_me', kind: 'api-token', name: 'herald-operator', scopes: ['dp:webhook_subscriber:manage'], orgId: 'default' };
      },
    };
    const resolve = principalResolver(client, undefined);
    await expect(resolve()).rejects.toThrow('down');
    await expect(resolve()).resolves.toBe('tok_me');
    await expect(resolve()).resolves.toBe('tok_me');
    expect(calls).toBe(2);
  });
});

describe('Metrics', () => {
  it('renders counters with escaped labels and gauges in Prometheus text format', async () => {
    const metrics = new Metrics();
    metrics.increment('jobs_total', 'Jobs', { result: 'ok' });
    metrics.increment('jobs_total', 'Jobs', { result: 'ok' }, 2);
    metrics.increment('jobs_total', 'Jobs', { result: 'say "hi"\\' });
    metrics.gauge('depth', 'Queue depth', () => 7);
    expect(await metrics.render()).toBe([
      '# HELP jobs_total Jobs',
      '# TYPE jobs_total counter',
      'jobs_total{result="ok"} 3',
      'jobs_total{result="say \\"hi\\"\\\\"} 1',
      '',
      '# HELP depth Queue depth',
      '# TYPE depth gauge',
      'depth 7',
      '',
    ].join('\n'));
  });
});
