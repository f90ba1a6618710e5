// App-wide state: build info, preferences (theme, last session), the
// Ollama connection, profiles and which slide-over panel is open. Session
// contents live in chat.svelte.ts. The profiles change only through the
// methods here (each takes the list the shell answers with), so every
// panel shows the same list.
import * as ipc from '../ipc';
import type { AppInfo, BackendStatus, Prefs, ProfilesView, ProfileView } from '../ipc';

/** Prefs with every field filled in (the shell may omit unset ones). */
export type FullPrefs = Required<Prefs>;
import { toasts } from './toasts.svelte';

export type Panel = 'models' | 'tools' | 'memory' | 'profiles' | 'settings' | null;
/** Each panel's title (the slide-over's heading, an error card's "Open …"). */
export const panelTitles = { models: 'Models', tools: 'Tools', memory: 'Memory', profiles: 'Profiles', settings: 'Settings' } as const;

class AppState {
  info = $state<AppInfo | null>(null);
  prefs = $state<FullPrefs>({ theme: 'system', last_session: null, sidebar_open: true, voice_send: true, notify: true, html_preview: false });
  backend = $state<BackendStatus | null>(null);
  checkingBackend = $state(false);
  #profiles = $state.raw<ProfilesView | null>(null);
  panel = $state<Panel>(null);

  async load(): Promise<void> {
    const [info, prefs] = await Promise.all([ipc.appInfo(), ipc.getPrefs()]);
    this.info = info;
    this.prefs = {
      theme: prefs.theme ?? 'system',
      last_session: prefs.last_session ?? null,
      sidebar_open: prefs.sidebar_open ?? true,
      voice_send: prefs.voice_send ?? true,
      notify: prefs.notify ?? true,
      html_preview: prefs.html_preview ?? false,
    };
    applyTheme(this.prefs.theme);
    await Promise.all([this.refreshBackend(), this.refreshProfiles()]);
  }

  async refreshBackend(): Promise<void> {
    this.checkingBackend = true;
    try {
      this.backend = await ipc.backendStatus();
      this.announceAdopted(this.backend);
    } catch (e) {
      const error = ipc.errorInfo(e);
      this.backend = { url: this.backend?.url ?? this.info?.ollama_url ?? '', reachable: false, version: null, error, models: [], adopted: null };
    } finally {
      this.checkingBackend = false;
    }
  }

  async setOllamaUrl(url: string): Promise<void> {
    try {
      this.backend = await ipc.setOllamaUrl(url);
      this.announceAdopted(this.backend);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** Points profiles whose backend is `openai` at an OpenAI-compatible server. */
  async setOpenaiUrl(url: string): Promise<void> {
    try {
      const resolved = await ipc.setOpenaiUrl(url);
      if (this.info) this.info = { ...this.info, openai_url: resolved };
      toasts.show(`OpenAI-compatible server: ${resolved}`);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** The first time the server's models were known, the seeded profiles moved to an installed model: say so once, and show them. */
  private announceAdopted(status: BackendStatus): void {
    const a = status.adopted;
    if (!a) return;
    toasts.show(`${a.profiles.join(' and ')} now use ${a.model}, a model this server has. Change it in Profiles.`);
    void this.refreshProfiles();
  }

  /** The profiles, the default one and the persona (null until read). */
  get profiles(): ProfilesView | null {
    return this.#profiles;
  }

  async refreshProfiles(): Promise<void> {
    try {
      this.#profiles = await ipc.listProfiles();
    } catch (e) {
      toasts.error(`Profiles: ${ipc.errorInfo(e).message}`);
    }
  }

  /** Reads the profiles if they were not read yet (a panel that needs them; it works without them, so a failure is not said). */
  async loadProfiles(): Promise<void> {
    if (this.#profiles) return;
    try {
      this.#profiles = await ipc.listProfiles();
    } catch {
      // The panel shows no profiles; the next refresh says what failed.
    }
  }

  /** Saves `profile` (renamed from `previousName`, or new when null); false, said in a toast, when the shell refuses it. */
  saveProfile(profile: ProfileView, previousName: string | null): Promise<boolean> {
    return this.#changeProfiles(() => ipc.saveProfile(profile, previousName));
  }

  deleteProfile(name: string): Promise<boolean> {
    return this.#changeProfiles(() => ipc.deleteProfile(name));
  }

  setDefaultProfile(name: string): Promise<boolean> {
    return this.#changeProfiles(() => ipc.setDefaultProfile(name));
  }

  /** The persona put before every profile's system prompt. */
  setPersona(persona: string): Promise<boolean> {
    return this.#changeProfiles(() => ipc.setPersona(persona));
  }

  /** Runs a change of the profiles and keeps the list it answers with; false when it failed (said in a toast). */
  async #changeProfiles(change: () => Promise<ProfilesView>): Promise<boolean> {
    try {
      this.#profiles = await change();
      return true;
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      return false;
    }
  }

  async savePrefs(patch: Partial<FullPrefs>): Promise<void> {
    this.prefs = { ...this.prefs, ...patch };
    if (patch.theme) applyTheme(patch.theme);
    try {
      await ipc.setPrefs($state.snapshot(this.prefs));
    } catch (e) {
      toasts.error(`Could not save preferences: ${ipc.errorInfo(e).message}`);
    }
  }
}

/** The theme the page shows now (diagrams are drawn in its colours). */
export const shownTheme = $state({ dark: false });

/** Sets `data-theme` on <html>; "system" follows the OS and its changes. */
function applyTheme(theme: FullPrefs['theme']): void {
  const dark = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  shownTheme.dark = dark;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  document.documentElement.dataset.themePref = theme;
}

window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  applyTheme(app.prefs.theme);
});

export const app = new AppState();
