import { describe, expect, it } from 'vitest';
import { assertKnownPlaceholders, fillPlaceholders, resolvePlaceholderValues } from '../src/api/placeholders.js';

describe('placeholders', () => {
  it('names the first unknown placeholder exactly', () => {
    expect(() => assertKnownPlaceholders('/orgs/{org}/x/{foo}/{bar}')).toThrow('unknown placeholder {foo} (supported: {org}, {project})');
    expect(() => assertKnownPlaceholders('/orgs/{Org}')).toThrow('unknown placeholder {Org}');
    expect(() => assertKnownPlaceholders('/orgs/{org}/projects/{project}')).not.toThrow();
  });

  it('resolves flags over link over current_org, each placeholder on its own', () => {
    expect(resolvePlaceholderValues({ org: 'f' }, { org: 'l', project: 'lp' }, 'c')).toStrictEqual({ org: 'f', project: 'lp' });
    expect(resolvePlaceholderValues({}, { project: 'lp' }, 'c')).toStrictEqual({ org: 'c', project: 'lp' });
    expect(resolvePlaceholderValues({}, {}, undefined)).toStrictEqual({ org: undefined, project: undefined });
    expect(resolvePlaceholderValues({ org: '' }, { org: 'l' }, 'c').org).toBe('');
  });

  it('fills and URL-encodes values', () => {
    expect(fillPlaceholders('/orgs/{org}/projects/{project}/{org}', { org: 'a b', project: 'p/1' })).toBe('/orgs/a%20b/projects/p%2F1/a%20b');
  });

  it('escapes the values "." and ".." so they stay one path segment', () => {
    expect(fillPlaceholders('/orgs/{org}/projects/{project}', { org: '..', project: '.' })).toBe('/orgs/%2E%2E/projects/%2E');
  });

  it('fails on an empty placeholder that the endpoint uses, and only then', () => {
    expect(() => fillPlaceholders('/orgs/{org}', { org: ' ', project: undefined })).toThrow('{org} is empty');
    expect(() => fillPlaceholders('/orgs/{org}/projects/{project}', { org: 'a', project: undefined })).toThrow("{project} is empty: pass --project or run 'herald link --project PROJECT'");
    expect(fillPlaceholders('/orgs', { org: undefined, project: undefined })).toBe('/orgs');
  });
});
