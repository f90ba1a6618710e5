// The memory summary as the store writes it (crates/store/src/consolidate.rs):
// facts grouped under a heading per category, those without one last under
// "Other", a plain list when none has a category. (The mock leaves out the
// store's contradiction and length rules: the panel only renders the text.)
import type { MemoryView } from '../bindings';

const GROUPS: [string, string][] = [
  ['identity', 'Who they are'],
  ['preference', 'Preferences'],
  ['environment', 'Their setup'],
  ['project', 'Projects'],
  ['skill', 'Skills'],
  ['goal', 'Goals'],
];

export function memorySummary(facts: MemoryView[]): string {
  const line = (m: MemoryView) => `- ${m.content}`;
  if (facts.every((m) => !m.category)) return facts.map(line).join('\n');
  const parts: string[] = [];
  for (const [category, heading] of GROUPS) {
    const group = facts.filter((m) => m.category === category);
    if (group.length) parts.push(`${heading}:\n${group.map(line).join('\n')}`);
  }
  const other = facts.filter((m) => !GROUPS.some(([c]) => c === m.category));
  if (other.length) parts.push(`Other:\n${other.map(line).join('\n')}`);
  return parts.join('\n');
}
