// @ts-check
// The import graph of one package's sources, type-only imports included: a type import ties two
// modules as surely as a value import does, so a circle made of types is still a circle to read.
// Built once per package and lint run, from each file's import and export specifiers as
// TypeScript's own pre-processor sees them; only relative specifiers are edges.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx)$/;
const DECLARATION = /\.d\.ts$/;

/** @param {string} dir @returns {string[]} */
function sourceFiles(dir) {
  /** @type {string[]} */
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (SOURCE.test(name) && !DECLARATION.test(name)) files.push(path);
  }
  return files;
}

/** A relative specifier as written (`./x.js`) to the source file it names. */
function resolveSpecifier(/** @type {string} */ from, /** @type {string} */ specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|ts|tsx|mjs)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** @param {string} file @returns {string[]} */
export function importsOf(file) {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => resolveSpecifier(file, specifier))
    .filter((target) => target !== undefined);
}

/**
 * Strongly connected components of more than one file (Tarjan), each as a set of files.
 * @param {Map<string, string[]>} graph
 */
function circles(graph) {
  let index = 0;
  /** @type {Map<string, number>} */ const order = new Map();
  /** @type {Map<string, number>} */ const low = new Map();
  /** @type {string[]} */ const stack = [];
  const onStack = new Set();
  /** @type {Set<string>[]} */ const found = [];
  /** @param {string} node */
  const visit = (node) => {
    order.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (low.get(next))));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (order.get(next))));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component = new Set();
      let member;
      do {
        member = /** @type {string} */ (stack.pop());
        onStack.delete(member);
        component.add(member);
      } while (member !== node);
      if (component.size > 1) found.push(component);
    }
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return found;
}

/** The first folder under `root` that holds `file`, or the file itself when it stands at the root. */
export function placeOf(/** @type {string} */ root, /** @type {string} */ file) {
  const path = file.slice(root.length + 1);
  const slash = path.indexOf('/');
  return slash < 0 ? path : `${path.slice(0, slash)}/`;
}

/** @type {Map<string, { graph: Map<string, string[]>, circleOf: Map<string, Set<string>>, placeCircleOf: Map<string, Set<string>> }>} */
const byRoot = new Map();

/** The graph of the source folder `root`, with each file's circle (when it is in one). */
export function graphOf(/** @type {string} */ root) {
  let entry = byRoot.get(root);
  if (!entry) {
    const graph = new Map(sourceFiles(root).map((file) => [file, importsOf(file)]));
    const circleOf = new Map();
    for (const component of circles(graph)) for (const file of component) circleOf.set(file, component);
    // The same, one level up: a folder that imports from a folder which imports from it.
    /** @type {Map<string, string[]>} */
    const places = new Map();
    for (const [file, targets] of graph) {
      const from = placeOf(root, file);
      const list = places.get(from) ?? [];
      for (const target of targets) if (placeOf(root, target) !== from) list.push(placeOf(root, target));
      places.set(from, list);
    }
    const placeCircleOf = new Map();
    for (const component of circles(places)) for (const place of component) placeCircleOf.set(place, component);
    entry = { graph, circleOf, placeCircleOf };
    byRoot.set(root, entry);
  }
  return entry;
}
