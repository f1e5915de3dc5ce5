import { describe, expect, it } from 'vitest';
import { loadOperatorConfig, OperatorConfigError } from '../../src/config.js';

const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

describe('loadOperatorConfig', () => {
  it('reads the documented variables', () => {
    const config = loadOperatorConfig({
      HERALD_URL: 'http://herald:8080',
      HERALD_TOKEN: ' hrd_x ',
      HERALD_OPERATOR_WATCH_NAMESPACES: 'a, b,,',
      HERALD_OPERATOR_LEASE_NAME: 'lease',
      HERALD_OPERATOR_LEASE_NAMESPACE: 'ops',
      HERALD_OPERATOR_IDENTITY: 'pod-1',
      HERALD_OPERATOR_RESYNC_SECONDS: '60',
    }, noFiles);
    expect(config.token()).toBe('hrd_x');
    expect(config.watchNamespaces).toEqual(['a', 'b']);
    expect(config.leaderElection).toMatchObject({ enabled: true, leaseName: 'lease', leaseNamespace: 'ops', identity: 'pod-1', leaseDurationSeconds: 15 });
    expect(config.resyncSeconds).toBe(60);
  });

  it('re-reads a token file after it changes', () => {
    let now = 0;
    let content = 'first';
    const config = loadOperatorConfig({ HERALD_URL: 'https://h', HERALD_TOKEN_FILE: '/t' }, () => content, () => now);
    content = 'second';
    expect(config.token()).toBe('first');
    now = 31_000;
    expect(config.token()).toBe('second');
  });

  it('rejects a missing URL, a missing token and inconsistent leader timings', () => {
    expect(() => loadOperatorConfig({ HERALD_TOKEN: 'x' }, noFiles)).toThrow(OperatorConfigError);
    expect(() => loadOperatorConfig({ HERALD_URL: 'ftp://h', HERALD_TOKEN: 'x' }, noFiles)).toThrow(/http/);
    expect(() => loadOperatorConfig({ HERALD_URL: 'http://h' }, noFiles)).toThrow(/HERALD_TOKEN/);
    expect(() => loadOperatorConfig({ HERALD_URL: 'http://h', HERALD_TOKEN: 'x', HERALD_OPERATOR_RENEW_DEADLINE_SECONDS: '20' }, noFiles)).toThrow(/renew deadline/);
  });
});
