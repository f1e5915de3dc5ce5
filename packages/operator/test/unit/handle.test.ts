import { describe, expect, it } from 'vitest';
import { deriveHandle, effectiveHandle, HANDLE_PATTERN } from '../../src/crd/handle.js';

describe('deriveHandle', () => {
  it('joins namespace and name with a dot when it fits', () => {
    expect(deriveHandle('payments', 'invoice-hook')).toBe('payments.invoice-hook');
  });

  it('is stable and valid for names up to the Kubernetes maximum', () => {
    const name = `${'a'.repeat(120)}.${'b'.repeat(132)}`;
    const handle = deriveHandle('team-x', name);
    expect(handle).toHaveLength(128);
    expect(handle).toMatch(HANDLE_PATTERN);
    expect(deriveHandle('team-x', name)).toBe(handle);
  });

  it('gives different handles to long names that share a prefix', () => {
    const prefix = 'x'.repeat(200);
    expect(deriveHandle('ns', `${prefix}-one`)).not.toBe(deriveHandle('ns', `${prefix}-two`));
  });

  it('prefers an explicit handle', () => {
    expect(effectiveHandle('ns', 'name', 'custom_id')).toBe('custom_id');
    expect(effectiveHandle('ns', 'name', undefined)).toBe('ns.name');
  });
});
