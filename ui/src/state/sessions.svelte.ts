// The sidebar's list of sessions and the actions on them. Deleting is
// undoable for a few seconds (the shell keeps a tombstone until then).
import * as ipc from '../ipc';
import type { ImportView, SessionInfo } from '../ipc';
import { projects } from './projects.svelte';
import { toasts } from './toasts.svelte';

class SessionsState {
  list = $state<SessionInfo[]>([]);

  /** Reads the sessions, and the projects with them (their counts follow their chats). */
  async refresh(): Promise<void> {
    const listed = projects.refresh();
    try {
      this.list = await ipc.listSessions();
    } catch (e) {
      toasts.error(`Sessions: ${ipc.errorInfo(e).message}`);
    }
    await listed;
  }

  /** Puts a session in `project` (null: in none); false when the core refused (an answer being written in it), said in a toast. */
  async move(id: string, project: string | null): Promise<boolean> {
    try {
      await ipc.moveSession(id, project);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      return false;
    }
    if (project) projects.expanded.add(project);
    await this.refresh();
    return true;
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
      toasts.show(imported(r), { ms: 10000 });
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

/** What an import did, in a sentence: a project's export names the project it came into, and what of it could not come along. */
function imported(r: ImportView): string {
  const n = r.sessions.length;
  const into = r.project ? ` into project “${r.project}”` : '';
  const left = r.skipped > 0 ? `; ${r.skipped} left out (system prompts, tool messages, pictures)` : '';
  const note = r.note ? `. Note: ${r.note}` : '';
  return `Imported ${n} conversation${n === 1 ? '' : 's'} from ${r.source} with ${r.messages} messages${into}${left}${note}`;
}

export const sessions = new SessionsState();
