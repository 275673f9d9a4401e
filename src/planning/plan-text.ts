import { GllamError } from "../engine/errors.ts";
import { formatStep, type PlanStep } from "./pddl-types.ts";

/** IPC plan format: one `(action arg ...)` a line, then `; cost = N`. */
export function formatPlan(plan: PlanStep[], cost: number): string {
  return `${plan.map(formatStep).join("\n")}${plan.length > 0 ? "\n" : ""}; cost = ${cost}\n`;
}

/** Reads an IPC plan (Fast Downward's sas_plan, `gllam plan` output); `;` starts a comment. */
export function parsePlanText(text: string, file: string): PlanStep[] {
  const steps: PlanStep[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/;.*$/, "").trim();
    if (!line) return;
    const match = /^\(\s*([^()\s]+)((?:\s+[^()\s]+)*)\s*\)$/.exec(line);
    if (!match) throw new GllamError("E_PLANNER", `${file}:${i + 1}: not a plan step: ${line.slice(0, 80)}`);
    steps.push({ action: match[1]!.toLowerCase(), args: match[2]!.trim().split(/\s+/).filter(Boolean).map((a) => a.toLowerCase()) });
  });
  return steps;
}
