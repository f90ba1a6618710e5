// Small models that call tools, offered to a user whose server has none.
// Sizes are the download sizes of the Ollama library's Q4_K_M builds (the
// default tags), so the user knows what a pull costs before it starts.
export type Recommended = { name: string; size: string; note: string };

export const RECOMMENDED: readonly Recommended[] = [
  { name: 'qwen3:4b', size: '2.5 GB', note: 'tools and thinking; good on 6 GB of VRAM' },
  { name: 'llama3.2:3b', size: '2.0 GB', note: 'tools; fast on small GPUs' },
  { name: 'granite3.3:2b', size: '1.5 GB', note: 'tools; the smallest' },
  { name: 'qwen2.5:7b', size: '4.7 GB', note: 'tools; better answers with 8 GB of VRAM' },
];
