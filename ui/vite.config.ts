// Vite config for the web UI. The repo root holds package.json and
// tauri.conf.json; the UI lives in ui/ and builds to ui/dist, which
// tauri.conf.json names as frontendDist. Port 5173 is tauri.conf.json's
// devUrl, so it is strict: a second server must fail, not move elsewhere.
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { artifactFrames } from './vite.artifact';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [svelte(), artifactFrames(import.meta.dirname)],
  clearScreen: false,
  envPrefix: ['VITE_', 'TAURI_ENV_'],
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // WebKitGTK on Debian 12 and current Linux distributions.
    target: 'safari15',
    sourcemap: false,
  },
});
