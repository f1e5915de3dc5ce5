// @ts-check
// Herald's structure rules. `no-import-cycle`: no file may import one that leads back to it, type
// imports included; nor may a folder import from a folder that leads back to it (files may be
// acyclic while their folders are not, and then no folder can be read without the other). `layers`: within a package, a file imports only from its own layer or those
// below; groups of one layer that are declared apart (core's engine and its services) import
// nothing of each other, so they meet only through the layers beneath them.
import { dirname, relative, resolve } from 'node:path';
import { graphOf, placeOf as folderOf } from './import-graph.js';

/** @typedef {import('eslint').Rule.RuleModule} RuleModule */
/** @typedef {{ root: string, layers: string[][][] }} LayerOptions */

/** @param {import('eslint').Rule.RuleContext} context @param {(node: any, target: string) => void} onImport */
function eachRelativeImport(context, onImport) {
  const file = context.filename;
  /** @param {any} node */
  const visit = (node) => {
    const specifier = node.source?.value;
    if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
    const { graph } = graphOf(rootOf(context));
    const target = (graph.get(file) ?? []).find((candidate) => sameSpecifier(file, specifier, candidate));
    if (target) onImport(node, target);
  };
  return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit, ImportExpression: visit };
}

/** Whether `specifier`, written in `file`, names `candidate` (the graph resolved it already). */
function sameSpecifier(/** @type {string} */ file, /** @type {string} */ specifier, /** @type {string} */ candidate) {
  const stem = resolve(dirname(file), specifier).replace(/\.(js|jsx|ts|tsx|mjs)$/, '');
  const target = candidate.replace(/\.(ts|tsx)$/, '');
  return target === stem || target === `${stem}/index`;
}

/** The `src` folder of the package that holds the file being linted. */
function rootOf(/** @type {import('eslint').Rule.RuleContext} */ context) {
  const match = /^(.*\/packages\/[^/]+\/src)\//.exec(context.filename);
  return match ? match[1] : dirname(context.filename);
}

/** A shortest way from `from` back to `to` inside their circle, for the message. */
function wayBack(/** @type {Map<string, string[]>} */ graph, /** @type {Set<string>} */ circle, /** @type {string} */ from, /** @type {string} */ to) {
  /** @type {Map<string, string>} */ const cameFrom = new Map();
  const queue = [from];
  while (queue.length > 0) {
    const node = /** @type {string} */ (queue.shift());
    if (node === to) break;
    for (const next of graph.get(node) ?? []) {
      if (!circle.has(next) || cameFrom.has(next) || next === from) continue;
      cameFrom.set(next, node);
      queue.push(next);
    }
  }
  const path = [to];
  while (path[0] !== from && cameFrom.has(path[0])) path.unshift(/** @type {string} */ (cameFrom.get(path[0])));
  return path;
}

/** @type {RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no import circles of files or folders, type imports included' },
    schema: [],
    messages: {
      cycle: 'Import circle: {{path}}. Move what both need into a module below them.',
      folderCycle: '{{from}} imports {{to}}, which leads back to {{from}}: folders import one way. Move what both need below them.',
    },
  },
  create(context) {
    const root = rootOf(context);
    return eachRelativeImport(context, (node, target) => {
      const { graph, circleOf, placeCircleOf } = graphOf(root);
      const circle = circleOf.get(context.filename);
      if (circle?.has(target)) {
        const path = [context.filename, ...wayBack(graph, circle, target, context.filename)].map((file) => relative(root, file));
        context.report({ node, messageId: 'cycle', data: { path: path.join(' → ') } });
        return;
      }
      const from = folderOf(root, context.filename);
      const to = folderOf(root, target);
      if (from !== to && placeCircleOf.get(from)?.has(to)) context.report({ node, messageId: 'folderCycle', data: { from, to } });
    });
  },
};

/** @param {LayerOptions} options @param {string} file @returns {{ layer: number, group: number } | undefined} */
function placeOf(options, file) {
  const path = relative(options.root, file);
  for (const [layer, groups] of options.layers.entries()) {
    for (const [group, prefixes] of groups.entries()) {
      if (prefixes.some((prefix) => (prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix))) return { layer, group };
    }
  }
  return undefined;
}

/** @type {RuleModule} */
const layers = {
  meta: {
    type: 'problem',
    docs: { description: 'imports go down the declared layers only' },
    schema: [{ type: 'object', properties: { root: { type: 'string' }, layers: { type: 'array' } }, required: ['root', 'layers'], additionalProperties: false }],
    messages: {
      up: '{{from}} (layer {{fromLayer}}) imports {{to}} (layer {{toLayer}}): imports go down only. Move what it needs below it.',
      apart: '{{from}} and {{to}} are declared apart in their layer; they meet only through the layers beneath.',
      unplaced: '{{file}} is in no layer of eslint.config.js: place its folder in the layer list.',
    },
  },
  create(context) {
    const declared = /** @type {LayerOptions} */ (context.options[0]);
    const options = { ...declared, root: resolve(context.cwd, declared.root) };
    if (!context.filename.startsWith(`${options.root}/`)) return {};
    const here = placeOf(options, context.filename);
    if (!here) {
      return { Program: (node) => context.report({ node, messageId: 'unplaced', data: { file: relative(options.root, context.filename) } }) };
    }
    return eachRelativeImport(context, (node, target) => {
      const there = placeOf(options, target);
      const data = { from: relative(options.root, context.filename), to: relative(options.root, target), fromLayer: String(here.layer), toLayer: String(there?.layer ?? '?') };
      if (!there) context.report({ node, messageId: 'unplaced', data: { file: data.to } });
      else if (there.layer > here.layer) context.report({ node, messageId: 'up', data });
      else if (there.layer === here.layer && there.group !== here.group) context.report({ node, messageId: 'apart', data });
    });
  },
};

export default { meta: { name: 'herald' }, rules: { 'no-import-cycle': noImportCycle, layers } };
