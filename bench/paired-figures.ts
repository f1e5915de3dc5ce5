// Pure helpers of the paired run (bench/paired.ts): every numeric figure of a benchmark summary by
// its path, and each figure's head ÷ base ratio over the pairs (median and min–max).
import { round } from './stats.js';

export type Figures = Map<string, number>;

/** Numeric leaves of a summary; an array of objects with a `name` is keyed by it, not by position. */
export function flattenFigures(value: unknown, prefix = '', into: Figures = new Map()): Figures {
  if (typeof value === 'number' && Number.isFinite(value)) into.set(prefix, value);
  else if (Array.isArray(value)) {
    value.forEach((item, index) => {
      const name = typeof item === 'object' && item !== null && typeof (item as { name?: unknown }).name === 'string' ? (item as { name: string }).name : String(index);
      flattenFigures(item, prefix ? `${prefix}[${name}]` : `[${name}]`, into);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) flattenFigures(child, prefix ? `${prefix}.${key}` : key, into);
  }
  return into;
}

export interface PairedFigure {
  figure: string;
  base: number[];
  head: number[];
  /** head ÷ base of each pair; null where the base figure is 0. */
  ratios: Array<number | null>;
  ratioMedian: number | null;
  ratioMin: number | null;
  ratioMax: number | null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * One row per figure present in every run of both sides. A figure equal in every run (a setting,
 * or 0 lost everywhere) has no ratio to show and is left out; `constant` counts them.
 */
export function pairFigures(base: Figures[], head: Figures[]): { rows: PairedFigure[]; constant: number } {
  const rows: PairedFigure[] = [];
  let constant = 0;
  const names = [...(head[0]?.keys() ?? [])].filter((name) => [...base, ...head].every((run) => run.has(name)));
  for (const figure of names) {
    const b = base.map((run) => run.get(figure)!);
    const h = head.map((run) => run.get(figure)!);
    if ([...b, ...h].every((value) => value === b[0])) {
      constant += 1;
      continue;
    }
    const ratios = h.map((value, i) => (b[i] === 0 ? null : round(value / b[i]!, 3)));
    const known = ratios.filter((ratio): ratio is number => ratio !== null);
    rows.push({
      figure,
      base: b,
      head: h,
      ratios,
      ratioMedian: known.length ? round(median(known), 3) : null,
      ratioMin: known.length ? Math.min(...known) : null,
      ratioMax: known.length ? Math.max(...known) : null,
    });
  }
  return { rows, constant };
}

export function formatRatio(row: PairedFigure): string {
  if (row.ratioMedian === null) return '–';
  return `${row.ratioMedian.toFixed(2)} (${row.ratioMin!.toFixed(2)}–${row.ratioMax!.toFixed(2)})`;
}
