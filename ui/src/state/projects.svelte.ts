// Projects as the sidebar and the project dialog show them
// (docs/projects.md): the list, read with the sessions (sessions.refresh
// reads both, so each project's count follows its chats), which projects
// are open in the sidebar (in memory only: a restart shows them closed,
// but for the one holding the open chat), and which dialog is up. The
// changes the dialogs make throw the core's error, which they show where
// the person is looking; the sidebar's own actions say theirs in a toast.
import { SvelteSet } from 'svelte/reactivity';
import * as ipc from '../ipc';
import type { ProjectDeletedView, ProjectDraftView, ProjectView } from '../ipc';
import { toasts } from './toasts.svelte';

/** The most characters a project's instructions may hold (the core's MAX_PROJECT_INSTRUCTIONS): they are sent with every message. */
export const MAX_INSTRUCTIONS = 8000;

class ProjectsState {
  list = $state.raw<ProjectView[]>([]);
  /** Projects shown open in the sidebar, by id. */
  readonly expanded = new SvelteSet<string>();
  /** The project dialog: a new project (null), the project of that id, or closed (undefined). */
  editing = $state<string | null | undefined>(undefined);
  /** The project whose deletion waits for a yes. */
  deleting = $state.raw<ProjectView | null>(null);

  byId(id: string | null | undefined): ProjectView | undefined {
    return id ? this.list.find((p) => p.id === id) : undefined;
  }

  async refresh(): Promise<void> {
    try {
      this.list = await ipc.listProjects();
    } catch (e) {
      toasts.error(`Projects: ${ipc.errorInfo(e).message}`);
    }
  }

  toggle(id: string): void {
    if (this.expanded.has(id)) this.expanded.delete(id);
    else this.expanded.add(id);
  }

  /**
   * Opens the project dialog (null: a new project). From a menu, after it
   * has closed and given the focus back to its button, so that the dialog
   * takes the focus and gives it back there.
   */
  edit(id: string | null): void {
    requestAnimationFrame(() => (this.editing = id));
  }

  /** Asks before deleting (after the menu that asked has closed, as `edit`). */
  confirmDelete(p: ProjectView): void {
    requestAnimationFrame(() => (this.deleting = p));
  }

  /** Creates (`id` null) or rewrites a project; throws the core's refusal (a name taken, a relative workspace). */
  async save(id: string | null, draft: ProjectDraftView): Promise<ProjectView> {
    const p = id === null ? await ipc.createProject(draft) : await ipc.updateProject(id, draft);
    this.expanded.add(p.id);
    await this.refresh();
    return p;
  }

  /** Deletes a project (its chats stay, in no project); throws the core's refusal (a knowledge sync running). */
  async remove(id: string): Promise<ProjectDeletedView> {
    const done = await ipc.deleteProject(id);
    this.expanded.delete(id);
    return done;
  }

  async export(id: string, format: 'markdown' | 'json'): Promise<void> {
    try {
      const path = await ipc.exportProject(id, format);
      if (path) toasts.show(`Exported to ${path}`, { ms: 10000 });
    } catch (e) {
      toasts.error(`Export failed: ${ipc.errorInfo(e).message}`);
    }
  }

  /** The folder dialog, then the folder added for this project's chats only; false when cancelled. Throws the core's refusal. */
  async addFolder(id: string): Promise<boolean> {
    const path = await ipc.knowledgeChooseFolder();
    if (path === null) return false;
    await ipc.knowledgeAddFolder(path, id);
    await this.refresh();
    return true;
  }

  /** Takes a folder out of the index (the files stay); throws the core's refusal (a sync running). */
  async removeFolder(path: string): Promise<void> {
    await ipc.knowledgeRemoveFolder(path);
    await this.refresh();
  }
}

export const projects = new ProjectsState();
