// The release workflow (.github/workflows/release.yml) passes actionlint, and publishes the image
// where the chart looks for it by default. actionlint is built by `make tools-actionlint`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '..');
const actionlint = resolve(repoRoot, '.tools/bin/actionlint');
const workflowsDir = resolve(repoRoot, '.github/workflows');

/** Runs actionlint without its optional shellcheck/pyflakes passes, so the result does not depend
 *  on what else happens to be installed on the machine. */
function lint(files: string[]): { status: number | null; output: string } {
  if (!existsSync(actionlint)) throw new Error(`${actionlint} is missing: run \`make tools-actionlint\``);
  const run = spawnSync(actionlint, ['-no-color', '-shellcheck=', '-pyflakes=', ...files], { cwd: repoRoot, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('release workflow', () => {
  it('passes actionlint', () => {
    const files = readdirSync(workflowsDir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(workflowsDir, f));
    expect(files.length).toBeGreaterThan(0);
    const result = lint(files);
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('actionlint catches a broken workflow (the lint is not a no-op)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-actionlint-'));
    try {
      const broken = join(dir, 'broken.yml');
      writeFileSync(broken, 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - run: echo ${{ github.nope }}\n');
      const result = lint([broken]);
      expect(result.status).not.toBe(0);
      expect(result.output).toContain('nope');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("publishes the image to the chart's default image.repository and the chart under the tag's version", () => {
    const workflow = readFileSync(join(workflowsDir, 'release.yml'), 'utf8');
    const values = readFileSync(resolve(repoRoot, 'charts/herald/values.yaml'), 'utf8');
    const published = /^\s*IMAGE:\s*(\S+)\s*$/m.exec(workflow)?.[1];
    const repository = /^image:\s*\n(?:\s+#.*\n)*\s+repository:\s*(\S+)/m.exec(values)?.[1];
    expect(published).toBeDefined();
    expect(repository).toBe(published);
    expect(workflow).toMatch(/platforms: linux\/amd64,linux\/arm64/);
    expect(workflow).toMatch(/helm" package charts\/herald --version "\$VERSION" --app-version "\$VERSION"/);
    expect(workflow).toMatch(/helm" push .*"\$CHART_REPO"/);
  });
});
