import { describe, expect, it } from 'vitest';
import { principalResolver, PROBE_TARGET_URL } from '../../src/herald/principal.js';
import type { Subscriber, SubscriberRequest } from '../../src/herald/types.js';
import { Metrics } from '../../src/metrics.js';

describe('principalResolver', () => {
  it('uses the configured principal without calling Herald', async () => {
    const resolve = principalResolver({ createSubscriber: () => Promise.reject(new Error('no call expected')), deleteSubscriber: () => Promise.reject(new Error('no')) }, 'tok_set');
    await expect(resolve()).resolves.toBe('tok_set');
  });

  it('probes once with a disabled subscriber it deletes again, and retries after a failure', async () => {
    const calls: string[] = [];
    let failNext = true;
    const client = {
      async createSubscriber(request: SubscriberRequest): Promise<Subscriber> {
        calls.push(`create ${request.targetUrl} enabled=${request.enabled}`);
        if (failNext) {
          failNext = false;
          throw new Error('down');
        }
        return { id: request.id ?? '', displayName: '', targetUrl: '', events: [], enabled: false, timeoutMs: 5000, hasSecret: false, createdBy: 'tok_me' };
      },
      async deleteSubscriber(id: string) {
        calls.push(`delete ${id.replace(/[0-9a-f]{12}$/, '<random>')}`);
      },
    };
    const resolve = principalResolver(client, undefined);
    await expect(resolve()).rejects.toThrow('down');
    await expect(resolve()).resolves.toBe('tok_me');
    await expect(resolve()).resolves.toBe('tok_me');
    expect(calls).toEqual([
      `create ${PROBE_TARGET_URL} enabled=false`,
      `create ${PROBE_TARGET_URL} enabled=false`,
      'delete herald-operator-probe-<random>',
    ]);
  });
});

describe('Metrics', () => {
  it('renders counters with escaped labels and gauges in Prometheus text format', () => {
    const metrics = new Metrics();
    metrics.increment('jobs_total', 'Jobs', { result: 'ok' });
    metrics.increment('jobs_total', 'Jobs', { result: 'ok' }, 2);
    metrics.increment('jobs_total', 'Jobs', { result: 'say "hi"\\' });
    metrics.gauge('depth', 'Queue depth', () => 7);
    expect(metrics.render()).toBe([
      '# HELP jobs_total Jobs',
      '# TYPE jobs_total counter',
      'jobs_total{result="ok"} 3',
      'jobs_total{result="say \\"hi\\"\\\\"} 1',
      '# HELP depth Queue depth',
      '# TYPE depth gauge',
      'depth 7',
      '',
    ].join('\n'));
  });
});
