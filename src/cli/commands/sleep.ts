import { spinner } from "@clack/prompts";
import { defineCommand } from "citty";
import * as v from "valibot";
import { GllamError, type GllamErrorCode } from "../../engine/errors.ts";
import type { SleepCycleReport } from "../../gllam/types.ts";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

const IntegerArg = (min: number, max: number) => v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(min), v.maxValue(max));

const score = (value: number | null) => (value === null ? "n/a (no traces)" : value.toFixed(2));

/** The report as a person reads it: what changed, the scores, then the answers that were not consistent. */
export function formatSleepReport(report: SleepCycleReport): string {
  const found = report.traces.filter((t) => t.found).length;
  const consistent = report.traces.filter((t) => t.consistent).length;
  const lines = [
    `sleep cycle (scope ${report.scope}, seed ${report.seed}) in ${report.seconds.toFixed(2)} s`,
    `  episode lexicon    ${report.lexiconBlocks} block(s) indexed`,
    `  interrupted jobs   ${report.resumedConsolidations} taxonomy consolidation(s) resumed`,
    `  hub caveats        ${report.compactedHubs} hub(s) compacted, ${report.compactedRevisionsCount} caveat(s) moved into summaries (links kept), summaries by ${report.caveatSummariser}`,
    `  taxonomy merges    ${report.consolidations.length} of ${report.mergeCandidates.length} candidate(s) merged, ${report.movedNodes} node(s) moved`,
    ...report.consolidations.map((c) => `                     ${c.from} -> ${c.to} (score ${c.score.toFixed(2)}, ${c.moved} nodes)`),
    ...report.mergeCandidates
      .filter((c) => !report.consolidations.some((m) => m.from === c.from.path && m.to === c.to.path))
      .slice(0, 5)
      .map((c) => `                     proposed: ${c.from.path} -> ${c.to.path} (score ${c.score.toFixed(2)})`),
    `  categorized        ${report.categorizedCount} node(s), ${report.createdCategories} new categor${report.createdCategories === 1 ? "y" : "ies"}, ${report.uncategorizedRemaining} still uncategorized (${report.categorizer})`,
    `  taxonomy cycles    ${report.taxonomyCycles.length === 0 ? "none" : report.taxonomyCycles.map((c) => c.join(" <-> ")).join("; ")}`,
    `  trace tests        ${report.traces.length} question(s), ${found} answered by a path`,
    `  memory clarity     ${score(report.memoryClarityScore)}`,
    `  consistency        ${score(report.memoryConsistencyScore)}${report.traces.length > 0 ? ` (${consistent} of ${report.traces.length})` : ""}`,
  ];
  const inconsistent = report.traces.filter((t) => !t.consistent);
  if (inconsistent.length > 0) {
    lines.push("", "inconsistent answers:");
    for (const t of inconsistent.slice(0, 10)) lines.push(`  ${t.question} ${t.answer} — ${t.issues.join("; ")}`);
  }
  if (report.fallbacks.length > 0) lines.push("", "LLM fallbacks (rule-based answer used):", ...report.fallbacks.slice(0, 10).map((f) => `  ${f}`));
  if (report.errors.length > 0) {
    lines.push("", "failed steps:");
    for (const e of report.errors) lines.push(`  ${e.step}: ${e.message} [${e.code}]`);
  }
  return lines.join("\n");
}

export const sleepCommand = defineCommand({
  meta: {
    name: "sleep",
    description: "Memory maintenance cycle: compact hub caveats, merge synonym categories, file uncategorized nodes, score the memory with synthetic trace tests",
  },
  args: {
    traces: { type: "string", description: "Synthetic trace tests (random entity pairs; default 10)", valueHint: "n" },
    seed: { type: "string", description: "Seed of the pair sampler: the same seed, the same traces (default: random, printed)", valueHint: "n" },
    "max-hops": { type: "string", description: "Longest path a trace looks for (default 4)", valueHint: "n" },
    scope: scopeArg,
    json: { type: "boolean", description: "Print the whole report (every trace) as JSON" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const traces = args.traces === undefined ? 10 : parseInput(IntegerArg(0, 100_000), args.traces, "--traces");
    const seed = args.seed === undefined ? undefined : parseInput(IntegerArg(0, 2 ** 31 - 1), args.seed, "--seed");
    const maxHops = args["max-hops"] === undefined ? undefined : parseInput(IntegerArg(1, 12), args["max-hops"], "--max-hops");
    return withEngine(args, { create: false }, async (gllam) => {
      const tty = process.stdout.isTTY === true && !args.json;
      const spin = tty ? spinner() : undefined;
      spin?.start("sleep cycle");
      const report = await gllam
        .enterMemorySleepCycle(traces, { scope: scopeOf(args), seed, maxHops, onProgress: (step, message) => spin?.message(`${step}: ${message}`) })
        .catch((error) => {
          spin?.error("sleep cycle failed");
          throw error;
        });
      spin?.stop(`sleep cycle done in ${report.seconds.toFixed(1)} s`);
      console.log(args.json ? JSON.stringify(report, null, 2) : formatSleepReport(report));
      const [first] = report.errors;
      if (first) throw new GllamError(first.code as GllamErrorCode, `${report.errors.length} step(s) of the sleep cycle failed (the others ran): ${first.message}`);
    });
  },
});
