// The sidebar's list of sessions and the actions on them. Deleting is
// undoable for a few seconds (the shell keeps a tombstone until then).
import * as ipc from '../ipc';
import type { SessionInfo } from '../ipc';
import { toasts } from './toasts.svelte';

class SessionsState {
  list = $state<SessionInfo[]>([]);

  async refresh(): Promise<void> {
    try {
      this.list = await ipc.listSessions();
    } catch (e) {
      toasts.error(`Sessions: ${ipc.errorInfo(e).message}`);
    }
  }

  /** The title worker named session `id` (told after its run's end). */
  titled(id: string, title: string): void {
    this.list = this.list.map((s) => (s.id === id ? { ...s, title } : s));
  }

  async rename(id: string, title: string): Promise<void> {
    try {
      await ipc.renameSession(id, title);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
    await this.refresh();
  }

  /**
   * Deletes and offers Undo. When the deleted session was open, `open.gone`
   * shows another one (the list is fresh by then) and Undo brings it back
   * with `open.restored`.
   */
  async remove(id: string, open?: { gone: () => Promise<void>; restored: () => Promise<void> }): Promise<void> {
    const title = this.list.find((s) => s.id === id)?.title ?? 'Session';
    try {
      await ipc.deleteSession(id);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      return;
    }
    await this.refresh();
    await open?.gone();
    toasts.show(`Deleted “${title}”`, {
      ms: 8000,
      action: {
        label: 'Undo',
        run: () => {
          void ipc
            .restoreSession(id)
            .then(() => this.refresh())
            .then(() => open?.restored())
            .catch((e: unknown) => toasts.error(ipc.errorInfo(e).message));
        },
      },
    });
  }

  /**
   * Asks the shell to import a file the person picks in the system's Open
   * dialog (ChatGPT's conversations.json, an Open WebUI export, a Hearth
   * JSON export) and opens the first conversation. Cancelling does nothing.
   */
  async importPicked(open: (id: string) => Promise<void>): Promise<void> {
    try {
      const r = await ipc.importFile();
      if (!r) return;
      await this.refresh();
      const left = r.skipped > 0 ? `; ${r.skipped} left out (system prompts, tool messages, pictures)` : '';
      const n = r.sessions.length;
      toasts.show(`Imported ${n} conversation${n === 1 ? '' : 's'} from ${r.source} with ${r.messages} messages${left}`, { ms: 10000 });
      if (r.sessions[0]) await open(r.sessions[0]);
    } catch (e) {
      toasts.error(`Import failed: ${ipc.errorInfo(e).message}`);
    }
  }

  async export(id: string, format: 'markdown' | 'json'): Promise<void> {
    try {
      const path = await ipc.exportSession(id, format);
      if (path) toasts.show(`Exported to ${path}`, { ms: 10000 });
    } catch (e) {
      toasts.error(`Export failed: ${ipc.errorInfo(e).message}`);
    }
  }
}

export const sessions = new SessionsState();
