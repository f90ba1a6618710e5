// The first-run states of the mock (?firstrun=…), as the shell's
// `first_run` settles them: `empty` (a server with no model, the seeded
// profiles waiting), `fresh` (a new database on a server without the seed
// model: the first status moves the profiles) and `missing` (an older
// database whose profiles name a model the server does not have).
import type { AdoptedModelView } from '../bindings';
import type { MockBackend } from './backend';

const SEED = 'llama3.2';
const pending = new WeakSet<MockBackend>();

export function firstRun(b: MockBackend, state: string | null): void {
  if (!state) return;
  for (const p of b.profiles) p.model = SEED;
  if (state === 'empty') b.models = [];
  if (state !== 'missing') pending.add(b);
}

function withTag(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

/** Moves the seeded profiles to an installed model once, the first time the server has any. */
export function settleSeeds(b: MockBackend): AdoptedModelView | null {
  if (!pending.has(b) || b.models.length === 0) return null;
  pending.delete(b);
  if (b.models.some((m) => withTag(m.name) === withTag(SEED))) return null;
  const pick = b.models.find((m) => m.capabilities.includes('tools')) ?? b.models[0]!;
  const moved = b.profiles.filter((p) => p.model === SEED);
  for (const p of moved) p.model = pick.name;
  return { model: pick.name, profiles: moved.map((p) => p.name).sort() };
}
