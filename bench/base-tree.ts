// The base revision of a paired run (BENCH_BASE), checked out and built beside the working tree in
// the git-ignored .bench/base-<sha>, so both sides run on the same machine at the same time. The
// build is cached by sha: a marker written only after `npm ci` and the build succeeded says the
// folder is usable; a folder without it (an interrupted build) is removed and built again.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BaseTree {
  sha: string;
  dir: string;
}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
}

function run(cwd: string, command: string, args: string[]): void {
  console.log(`  base: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

/** The full sha `revision` names, or an error that says what was asked. */
export function resolveRevision(root: string, revision: string): string {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
  } catch {
    throw new Error(`BENCH_BASE=${revision} names no commit of this repository`);
  }
}

/** What the working tree runs: its commit, marked when files differ from it. */
export function describeHead(root: string): string {
  const sha = git(root, ['rev-parse', '--short=12', 'HEAD']);
  return git(root, ['status', '--porcelain', '--untracked-files=no']) === '' ? sha : `${sha} + working tree`;
}

export function prepareBaseTree(root: string, revision: string): BaseTree {
  const sha = resolveRevision(root, revision);
  const dir = join(root, '.bench', `base-${sha}`);
  const ready = `${dir}.ready`;
  if (existsSync(ready) && existsSync(join(dir, 'node_modules'))) return { sha, dir };
  mkdirSync(join(root, '.bench'), { recursive: true });
  if (existsSync(dir)) {
    // Left by a build that did not finish: start again from a clean checkout.
    try {
      git(root, ['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  git(root, ['worktree', 'prune']);
  rmSync(ready, { force: true });
  console.log(`Building base ${sha.slice(0, 12)} in ${dir}`);
  run(root, 'git', ['worktree', 'add', '--detach', dir, sha]);
  // The external tools (FerretDB, memory-mongo) are not the code under test: both sides use the same.
  if (existsSync(join(root, '.tools'))) symlinkSync(join(root, '.tools'), join(dir, '.tools'));
  run(dir, 'npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline']);
  // What the delivery benchmark and the host need; the console's bundle is not measured here.
  run(dir, 'npx', ['tsc', '-b', 'tsconfig.build.json']);
  writeFileSync(ready, `${new Date().toISOString()}\n`);
  return { sha, dir };
}
