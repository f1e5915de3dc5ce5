import { describe, expect, it } from 'vitest';
import { configDirectory } from '../src/config/paths.js';
import { normalizeInstanceUrl, parseConfigFile, parseCredentialsFile, parseLinkFile } from '../src/config/schema.js';
import { requireToken, resolveActiveInstance } from '../src/config/instance.js';
import { VERSION } from '../src/version.js';
import packageJson from '../package.json' with { type: 'json' };

describe('configDirectory', () => {
  it('uses HERALD_CONFIG_DIR, then XDG_CONFIG_HOME/herald, then ~/.config/herald', () => {
    expect(configDirectory({ HERALD_CONFIG_DIR: '/c', XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/c');
    expect(configDirectory({ XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe('/x/herald');
    expect(configDirectory({}, '/home/u')).toBe('/home/u/.config/herald');
  });
});

describe('config file parsing', () => {
  it('accepts a valid file and names the file when it is corrupt', () => {
    expect(parseConfigFile('{"current_org":"acme","instances":{"https://h":{"url":"https://h"}}}', '/c/config.json').current_org).toBe('acme');
    expect(() => parseConfigFile('{nope', '/c/config.json')).toThrow('/c/config.json is corrupt: not valid JSON');
    expect(() => parseConfigFile('[]', '/c/config.json')).toThrow('/c/config.json is corrupt: expected a JSON object');
    expect(() => parseConfigFile('{"current_org":5}', '/c/config.json')).toThrow('"current_org" must be a string');
    expect(() => parseConfigFile('{"instances":{"x":1}}', '/c/config.json')).toThrow('"instances" has an unexpected shape');
    expect(() => parseCredentialsFile('{"tokens":{"x":1}}', '/c/credentials.json')).toThrow('/c/credentials.json is corrupt');
    expect(() => parseLinkFile('{"org":true}', '/w/.herald.json')).toThrow('/w/.herald.json is corrupt');
  });
});

describe('normalizeInstanceUrl', () => {
  it('normalizes http(s) URLs', () => {
    expect(normalizeInstanceUrl('https://herald.example.com/')).toBe('https://herald.example.com');
    expect(normalizeInstanceUrl('http://127.0.0.1:8080/prefix/')).toBe('http://127.0.0.1:8080/prefix');
  });
  it.each([
    ['not a url', 'not a URL'],
    ['ftp://h', 'only http and https'],
    ['https://u:p@h', 'credentials in the URL'],
    ['https://h/?x=1', 'no query or fragment'],
  ])('rejects %j', (text, why) => {
    expect(() => normalizeInstanceUrl(text)).toThrow(why);
  });
});

describe('resolveActiveInstance', () => {
  const config = { current_instance: 'https://a', instances: { 'https://a': { url: 'https://a' } } };
  const credentials = { tokens: { 'https://a': 'stored', 'https://b': 'other' } };

  it('uses the current instance and its stored token', () => {
    expect(resolveActiveInstance({}, config, credentials)).toStrictEqual({ url: 'https://a', token: 'stored' });
  });
  it('lets HERALD_URL and HERALD_TOKEN override', () => {
    expect(resolveActiveInstance({ HERALD_URL: 'https://b/' }, config, credentials)).toStrictEqual({ url: 'https://b', token: 'other' });
    expect(resolveActiveInstance({ HERALD_TOKEN: 'env' }, config, credentials).token).toBe('env');
  });
  it('explains a missing instance or token', () => {
    expect(() => resolveActiveInstance({}, {}, {})).toThrow("no Herald instance: run 'herald login --url URL' or set HERALD_URL");
    expect(() => requireToken({ url: 'https://c', token: undefined })).toThrow('not logged in to https://c');
  });
});

describe('VERSION', () => {
  it('matches package.json', () => {
    expect(VERSION).toBe(packageJson.version);
  });
});
