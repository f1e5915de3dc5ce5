// The structure rules of eslint/plugin.js, run by ESLint itself over small trees made here: a circle
// of type imports, an import up a layer, one between groups declared apart, a file in no layer.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';
import herald from '../eslint/plugin.js';

const LAYERS = [[['shared/']], [['engine/'], ['events/']], [['index.ts']]];
const made: string[] = [];
afterEach(() => { for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true }); });

async function lint(files: Record<string, string>): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), 'herald-structure-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, 'packages/demo/src', path)), { recursive: true });
    writeFileSync(join(root, 'packages/demo/src', path), text);
  }
  const eslint = new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { herald },
      rules: { 'herald/no-import-cycle': 'error', 'herald/layers': ['error', { root: 'packages/demo/src', layers: LAYERS }] },
    }],
  });
  const results = await eslint.lintFiles(['packages/demo/src/**/*.ts']);
  return results.flatMap((result) => result.messages.map((message) => `${result.filePath.slice(root.length + 1)}: ${message.ruleId} ${message.message}`)).sort();
}

describe('structure lint rules', () => {
  it('passes a tree whose imports go down and never come back', async () => {
    expect(await lint({
      'shared/words.ts': 'export type Word = string;\n',
      'engine/run.ts': "import type { Word } from '../shared/words.js';\nexport const run = (word: Word) => word;\n",
      'index.ts': "export { run } from './engine/run.js';\n",
    })).toEqual([]);
  });

  it('reports a circle made only of type imports, naming the way round', async () => {
    const messages = await lint({
      'shared/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'shared/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
    });
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('herald/no-import-cycle Import circle: shared/a.ts → shared/b.ts → shared/a.ts');
  });

  it('reports folders that import each other although their files make no circle', async () => {
    const messages = await lint({
      'shared/a.ts': "import { y } from '../engine/y.js';\nexport const a = y;\n",
      'shared/b.ts': 'export const b = 1;\n',
      'engine/y.ts': 'export const y = 2;\n',
      'engine/z.ts': "import { b } from '../shared/b.js';\nexport const z = b;\n",
    });
    expect(messages.filter((message) => message.includes('no-import-cycle'))).toEqual([
      expect.stringMatching(/^packages\/demo\/src\/engine\/z\.ts: herald\/no-import-cycle engine\/ imports shared\/, which leads back to engine\//),
      expect.stringMatching(/^packages\/demo\/src\/shared\/a\.ts: herald\/no-import-cycle shared\/ imports engine\/, which leads back to shared\//),
    ]);
  });

  it('reports an import up a layer, one between groups kept apart, and a file in no layer', async () => {
    const messages = await lint({
      'shared/words.ts': "import type { Run } from '../engine/run.js';\nexport type Word = Run;\n",
      'engine/run.ts': "import { publish } from '../events/publish.js';\nexport type Run = string;\nexport const run = publish;\n",
      'events/publish.ts': 'export const publish = () => 1;\n',
      'stray/thing.ts': 'export const thing = 1;\n',
    });
    expect(messages).toEqual([
      expect.stringMatching(/^packages\/demo\/src\/engine\/run\.ts: herald\/layers engine\/run\.ts and events\/publish\.ts are declared apart/),
      expect.stringMatching(/^packages\/demo\/src\/shared\/words\.ts: herald\/layers shared\/words\.ts \(layer 0\) imports engine\/run\.ts \(layer 1\)/),
      expect.stringMatching(/^packages\/demo\/src\/stray\/thing\.ts: herald\/layers stray\/thing\.ts is in no layer/),
    ]);
  });
});
