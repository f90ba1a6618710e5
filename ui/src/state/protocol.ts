// A core that speaks another wire format than this page was built for (an
// old page cached by the webview, a core updated under it): events may be
// misread, so the person is told once how to get a matching page.
import * as ipc from '../ipc';

import { toasts } from './toasts.svelte';

let warned = false;

/** Checks run_started's `protocol` against this page's; warns once per page. */
export function checkProtocol(version: number | undefined): void {
  if (version === undefined || version === ipc.PROTOCOL_VERSION || warned) return;
  warned = true;
  // Up for ten minutes: it explains whatever looks wrong meanwhile.
  const text = `This window speaks Hearth's wire format ${ipc.PROTOCOL_VERSION}, the core speaks ${version}: reload the window (Ctrl+R), or reinstall Hearth if that does not help.`;
  toasts.show(text, { kind: 'error', ms: 600_000 });
}
