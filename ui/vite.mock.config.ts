// Builds the UI with a fake backend (ui/mock.html → src/mock/main.ts) for
// the Chromium UI tests. It is a separate build into dist-mock/ so the
// mock never reaches the production bundle (ui/dist from index.html).
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';
import { artifactFrames } from './vite.artifact';

export default defineConfig({
  root: import.meta.dirname,
  plugins: [svelte(), artifactFrames(import.meta.dirname)],
  clearScreen: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist-mock',
    emptyOutDir: true,
    target: 'safari15',
    sourcemap: false,
    rollupOptions: { input: { mock: `${import.meta.dirname}/mock.html` } },
  },
});
