// Output of the dedicated commands: JSON when asked (--json) or when stdout is not a terminal,
// otherwise a table drawn with Ink, which is imported only then.
import { writeOut } from './io.js';
import type { View } from './view.js';

export function wantsJson(jsonFlag: boolean): boolean {
  return jsonFlag || !process.stdout.isTTY;
}

export async function printResult(data: unknown, view: View, jsonFlag: boolean): Promise<void> {
  if (wantsJson(jsonFlag)) {
    await writeOut(`${JSON.stringify(data ?? null, null, 2)}\n`);
    return;
  }
  const ui = await import('./ui/render.js');
  await ui.renderView(data, view);
}

/** Shows a spinner on a terminal while the work runs; plain await otherwise. */
export async function withProgress<T>(label: string, work: () => Promise<T>, jsonFlag: boolean): Promise<T> {
  if (wantsJson(jsonFlag) || !process.stderr.isTTY) return work();
  const ui = await import('./ui/render.js');
  return ui.withSpinner(label, work);
}
