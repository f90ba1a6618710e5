// Svelte options shared by the Vite plugin and svelte-check.
export default {
  compilerOptions: {
    runes: true,
  },
};
