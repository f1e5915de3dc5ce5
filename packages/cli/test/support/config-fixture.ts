// Writes a config directory as `herald login` would, so tests start already logged in.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const testToken = 'hrd_test_token_5f2c9a';

export function seedConfig(configDir: string, options: { url: string; token?: string; currentOrg?: string }): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const config = { current_instance: options.url, instances: { [options.url]: { url: options.url } }, ...(options.currentOrg ? { current_org: options.currentOrg } : {}) };
  writeFileSync(join(configDir, 'config.json'), JSON.stringify(config));
  writeFileSync(join(configDir, 'credentials.json'), JSON.stringify({ tokens: { [options.url]: options.token ?? testToken } }), { mode: 0o600 });
}
