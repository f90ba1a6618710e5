// The one place the UI talks to the desktop shell. Components import these
// functions and never call `invoke` themselves, so every command the page
// can reach is listed here (and granted in tauri.conf.json's capability).
import { invoke } from '@tauri-apps/api/core';

/** The app's version (the `version` of the root Cargo.toml), e.g. "0.1.0". */
export function appVersion(): Promise<string> {
  return invoke<string>('app_version');
}
