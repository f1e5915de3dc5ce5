import { describe, expect, it } from 'vitest';
import { conditionsFor } from '../../src/reconcile/conditions.js';

describe('conditionsFor', () => {
  it('marks Ready and Synced true with the generation on success', () => {
    const [ready, synced] = conditionsFor({ ok: true, message: 'ok' }, 4, '2026-01-01T00:00:00.000Z');
    expect(ready).toMatchObject({ type: 'Ready', status: 'True', reason: 'Synced', observedGeneration: 4 });
    expect(synced).toMatchObject({ type: 'Synced', status: 'True', reason: 'Synced', observedGeneration: 4 });
  });

  it('makes Ready Unknown when the host is unreachable and False for other failures', () => {
    const [unreachable] = conditionsFor({ ok: false, reason: 'HostUnreachable', message: 'down' }, 1, 't');
    const [conflict, syncedConflict] = conditionsFor({ ok: false, reason: 'Conflict', message: 'taken' }, 1, 't');
    expect(unreachable?.status).toBe('Unknown');
    expect(conflict).toMatchObject({ status: 'False', reason: 'Conflict', message: 'taken' });
    expect(syncedConflict).toMatchObject({ status: 'False', reason: 'Conflict' });
  });

  it('keeps lastTransitionTime while the status is unchanged and moves it on a flip', () => {
    const first = conditionsFor({ ok: true, message: 'ok' }, 1, 'T1');
    const same = conditionsFor({ ok: true, message: 'still ok' }, 2, 'T2', first);
    const flipped = conditionsFor({ ok: false, reason: 'SecretNotFound', message: 'gone' }, 2, 'T3', same);
    expect(same.map((condition) => condition.lastTransitionTime)).toEqual(['T1', 'T1']);
    expect(flipped.map((condition) => condition.lastTransitionTime)).toEqual(['T3', 'T3']);
  });
});
