// What most dedicated commands do once their arguments are checked: one API call on the current
// instance (a spinner on a terminal while it waits), then the answer printed as `view`. The instance
// is read only here, after the checks, so a usage error is reported before "not logged in".
import { activeInstance, openConfigStore } from './context.js';
import { callApi, type ApiCall } from './http/client.js';
import { printResult, withProgress } from './output.js';
import type { View } from './view.js';

/** Returns the answer as printed, for commands that add a notice about it. */
export async function callAndPrint(label: string, call: ApiCall, view: View, jsonFlag: boolean): Promise<unknown> {
  const instance = activeInstance(openConfigStore());
  const { data } = await withProgress(label, () => callApi(instance, call), jsonFlag);
  await printResult(data, view, jsonFlag);
  return data;
}
