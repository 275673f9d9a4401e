/** Filling semantic memory: extraction of sessions by the STRONG model, and import of pre-structured facts. */
import * as v from "valibot";
import type { ExtractReport } from "../../extraction/extract.ts";
import type { FactImportReport } from "../../extraction/import-facts.ts";
import { parseInput } from "../../memory/parse.ts";
import { ScopeSchema } from "../../memory/types.ts";
import { formatDay } from "../../retrieval/format.ts";
import { defineOperation, IntegerSchema } from "../operation.ts";
import { factStatementOf, FactInputSchema } from "./facts.ts";

/** Tokens as people read them (12,345). */
const count = (n: number) => n.toLocaleString("en-US");

/** The one summary line: sessions, facts, tokens, errors. */
export function formatExtractSummary(report: ExtractReport): string {
  const verb = report.dryRun ? "would extract" : "extracted";
  const tokens = `${count(report.usage.promptTokens)} prompt + ${count(report.usage.completionTokens)} completion tokens`;
  const cost = report.usage.cost > 0 ? `, $${report.usage.cost.toFixed(4)}` : "";
  const already = report.alreadyExtracted > 0 ? ` (${report.alreadyExtracted} already extracted)` : "";
  const judge = `fallacies: ${report.fallacyJudge}${report.judgeFallbacks > 0 ? `, rules alone for ${report.judgeFallbacks} claims the judge failed on` : ""}`;
  return `${verb} ${report.dryRun ? report.outcomes.length : report.extracted} of ${report.matched} sessions${already}: ${report.facts} facts, ${report.nodes} new nodes, ${tokens}${cost}, ${report.failed} errors (${report.extractor}; ${judge})`;
}

export function formatExtractReport(report: ExtractReport): string {
  const lines: string[] = [];
  for (const outcome of report.outcomes) {
    if (outcome.status === "failed") lines.push(`${outcome.sessionId}: failed: ${outcome.error}`);
    if (outcome.status === "already") lines.push(`${outcome.sessionId}: extracted meanwhile by another run, left alone`);
    if (outcome.removed) lines.push(`${outcome.sessionId}: removed its earlier extraction (${outcome.removed.links} links, ${outcome.removed.nodes} nodes)`);
    for (const fact of outcome.planned) {
      const when = fact.validFrom === undefined ? "" : ` (from ${formatDay(fact.validFrom)}${fact.validUntil === undefined ? "" : ` to ${formatDay(fact.validUntil)}`})`;
      lines.push(`${outcome.sessionId}: would add ${fact.subject} -[${fact.relationship}]-> ${fact.object}${when}`);
    }
    for (const skipped of outcome.skipped) lines.push(`${outcome.sessionId}: skipped "${skipped.fact}": ${skipped.reason}`);
  }
  lines.push(formatExtractSummary(report));
  return lines.join("\n");
}

export const extract = defineOperation({
  name: "extract",
  summary:
    "Turn ingested sessions into entities and facts with the STRONG LLM (resumable: sessions already extracted are skipped; clean re-extracts them, replacing only their own output); facts go through addEdge with the speaker or document as source",
  input: v.object({
    scope: ScopeSchema,
    prefix: v.optional(v.pipe(v.string(), v.maxLength(500)), ""),
    concurrency: v.optional(IntegerSchema(1, 256), 1),
    clean: v.optional(v.boolean(), false),
    dry_run: v.optional(v.boolean(), false),
  }),
  readOnly: false,
  run: (gllam, input) => gllam.extract({ scope: input.scope, prefix: input.prefix, concurrency: input.concurrency, clean: input.clean, dryRun: input.dry_run }),
  toText: formatExtractReport,
});

export const importFactsOperation = defineOperation({
  name: "import_facts",
  summary: "Record pre-structured facts (each with the fields of add_fact) without an LLM, all or none: a refused fact writes nothing and is named",
  input: v.object({ facts: v.pipe(v.array(v.unknown()), v.maxLength(1_000_000)), scope: ScopeSchema }),
  readOnly: false,
  opens: { create: true },
  run: (gllam, input) =>
    gllam.importFacts(
      input.facts.map((fact, i) => {
        const where = `fact ${i + 1}`;
        // Names a file gives are meant: a new one beside a close name is created unless the line says allow_new: false.
        const line = typeof fact === "object" && fact !== null ? { scope: input.scope, allow_new: true, ...fact } : fact;
        return { where, statement: factStatementOf(parseInput(FactInputSchema, line, where)) };
      }),
    ),
  toText: (report: FactImportReport) =>
    `imported ${report.facts} facts: ${report.created} new nodes, ${report.duplicates} already known, ${report.contradictions} contradictions opened`,
});
