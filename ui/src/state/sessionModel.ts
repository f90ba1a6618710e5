// Which model and host the session's next answer comes from: the session's
// own model and host (the model picker), else its profile's. Read inside a
// `$derived`, it follows the state it reads.
import type { ProfileView } from '../ipc';
import { app } from './app.svelte';
import { chat } from './chat.svelte';

export interface SessionModel {
  /** The session's profile (its active one, else the default). */
  profile: ProfileView | null;
  /** The profile answers from the default Ollama (an OpenAI-compatible server names its own models). */
  onOllama: boolean;
  /** The host the next answer comes from. */
  host: string;
  /** The model the next answer comes from ('' when unknown). */
  model: string;
}

export function sessionModel(): SessionModel {
  const profile = app.profiles?.profiles.find((p) => p.name === (chat.profile || app.profiles?.default_profile)) ?? null;
  const onOllama = profile !== null && (profile.backend === null || profile.backend === 'ollama');
  const host = chat.host ?? profile?.backend ?? 'ollama';
  // The session's own model applies on the host it stays on, or, before it has one, on the default Ollama.
  const model = chat.model && (chat.host !== null || onOllama) ? chat.model : (profile?.model ?? '');
  return { profile, onOllama, host, model };
}
