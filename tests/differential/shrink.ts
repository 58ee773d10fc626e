/**
 * @module tests/differential/shrink
 * Shrinks a failing sbatch case to a minimal one that still fails: greedily drops options
 * (the mode flags --hold/--test-only stay: they keep the oracle's jobs from running),
 * moves an option to the command line with its plain --name=value spelling, and drops
 * comment and blank lines from the script. Each step keeps a change only if the case
 * still shows a new difference; the number of tries is bounded.
 */
import type { Case, OptionUse, SubmitCase } from "./generator.ts";

const KEEP = new Set(["hold", "test-only"]);

/** Simpler variants of a case, most reducing first. */
export function simplerVariants(c: SubmitCase): SubmitCase[] {
  const out: SubmitCase[] = [];
  const directivesBefore = (i: number) => c.options.slice(0, i).filter((o) => o.placement === "directive").length;
  c.options.forEach((o, i) => {
    if (KEEP.has(o.name)) return;
    const options = c.options.filter((_, j) => j !== i);
    // drop the directive's slot from the layout too
    const layout = o.placement === "directive" ? dropSlot(c.layout, directivesBefore(i)) : c.layout;
    out.push({ ...c, options, layout });
  });
  c.options.forEach((o, i) => {
    const plain: OptionUse = { name: o.name, form: o.form, placement: "cli", spelling: "long=", ...(o.value !== undefined ? { value: o.value } : {}) };
    if (o.placement === "cli" && o.spelling === "long=") return;
    const options = c.options.map((x, j) => (j === i ? plain : x));
    const layout = o.placement === "directive" ? dropSlot(c.layout, directivesBefore(i)) : c.layout;
    out.push({ ...c, options, layout });
  });
  const bare = c.layout.filter((t) => t === "D" || t === "command");
  if (bare.length < c.layout.length) out.push({ ...c, layout: bare });
  if (!c.wrap && c.options.every((o) => o.placement !== "directive")) out.push({ ...c, wrap: true, layout: ["command"] });
  return out;
}

function dropSlot(layout: readonly string[], k: number): SubmitCase["layout"] {
  let seen = -1;
  return layout.filter((t) => !(t === "D" && ++seen === k)) as SubmitCase["layout"];
}

/** Greedy shrink: take the first simpler variant that still fails, until none does or `triesMax` runs out. */
export async function shrink(c: Case, stillFails: (c: Case) => Promise<boolean>, triesMax = 20): Promise<{ case: Case; tries: number }> {
  if (c.kind !== "sbatch") return { case: c, tries: 0 };
  let cur: SubmitCase = c;
  let tries = 0;
  for (;;) {
    let progressed = false;
    for (const v of simplerVariants(cur)) {
      if (tries >= triesMax) return { case: cur, tries };
      tries++;
      if (await stillFails(v)) {
        cur = v;
        progressed = true;
        break;
      }
    }
    if (!progressed) return { case: cur, tries };
  }
}
