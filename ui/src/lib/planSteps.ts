// A plan's text split into lines, with the numbered steps picked out so
// plan_progress (1-based step numbers) can mark them done. The planner
// writes "1. …" or "1) …"; any other line (a heading, a note) is kept as is.

export interface PlanLine {
  text: string;
  /** The step number, for a numbered line. */
  step: number | null;
}

const STEP = /^\s*(\d+)[.)]/;

export function planLines(plan: string): PlanLine[] {
  return plan
    .replace(/^\s*\n|\s+$/g, '')
    .split('\n')
    .map((text) => {
      const m = STEP.exec(text);
      return { text, step: m ? Number(m[1]) : null };
    });
}

/** How many of the plan's numbered steps are in `done`, out of how many. */
export function planCount(lines: PlanLine[], done: number[]): { done: number; total: number } {
  const steps = new Set(lines.flatMap((l) => (l.step === null ? [] : [l.step])));
  return { done: [...steps].filter((s) => done.includes(s)).length, total: steps.size };
}
