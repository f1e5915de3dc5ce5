import { describe, expect, it } from 'vitest';
import { moveLeadingOrgFlag } from '../src/main.js';

describe('moveLeadingOrgFlag', () => {
  it('moves an inherited --org given before the command behind the command name', () => {
    expect(moveLeadingOrgFlag(['--org', 'acme', 'api', '/orgs/{org}'])).toStrictEqual(['api', '--org', 'acme', '/orgs/{org}']);
    expect(moveLeadingOrgFlag(['--org=acme', 'api', '-i'])).toStrictEqual(['api', '--org=acme', '-i']);
  });
  it('leaves everything else alone', () => {
    expect(moveLeadingOrgFlag(['api', '--org', 'acme'])).toStrictEqual(['api', '--org', 'acme']);
    expect(moveLeadingOrgFlag(['--org', 'acme'])).toStrictEqual(['--org', 'acme']);
    expect(moveLeadingOrgFlag([])).toStrictEqual([]);
  });
});
