/**
 * `gllam extract`: each session not yet in extracted_sessions (all of them with `clean`) is sent to
 * the STRONG model in chunks that fit its context, with the steering prompt of its content type;
 * the answers are validated, dates resolved against the session's date, and the session's facts
 * written and the session marked in one transaction (so a killed run resumes exactly once).
 * N sessions are in flight; writes stay on the one writer (bun:sqlite is synchronous, so each
 * session's transaction runs whole between awaits). A server that cannot be reached, refuses the
 * key or does not serve the model stops the run before anything more is written.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { getIngestionSteeringPrompt } from "../config/registries.ts";
import { GllamError, isGllamError, type GllamErrorCode } from "../engine/errors.ts";
import { writeMetadata } from "../engine/metadata.ts";
import type { Store } from "../engine/store.ts";
import {
  isSessionExtracted,
  listExtractableSessions,
  markSessionExtracted,
  readSessionTurns,
  unmarkSessionExtracted,
  type ExtractableSession,
  type SessionTurn,
} from "../episodic/extraction-checkpoints.ts";
import { chunkTurns, turnBudget } from "../llm/chunks.ts";
import { emptyUsage, type LlmClient, type LlmUsage } from "../llm/client.ts";
import { buildExtractionMessages, estimateTokens, ExtractionSchema, type Extraction, type PromptTurn } from "../llm/extraction-prompt.ts";
import { jsonSchemaOf } from "../llm/output.ts";
import { formatSessionDate, resolveDateText } from "../llm/relative-dates.ts";
import { parseScope } from "../memory/parse.ts";
import { normalizeEntityName } from "../semantic/names.ts";
import { knownNodeNamed } from "../semantic/nodes.ts";
import { readSource } from "../semantic/sources.ts";
import { askFallacyJudge, type FallacyFinding, type FallacyJudge, type FallacyKind } from "../semantic/fallacies.ts";
import { removeSessionExtraction, writeSessionExtraction, type SessionExtractionInput, type WrittenFact } from "../semantic/extraction-write.ts";

/** Failures that would fail every session the same way: the run stops at the first. */
const FATAL: GllamErrorCode[] = ["E_LLM_UNREACHABLE", "E_LLM_AUTH", "E_LLM_MODEL", "E_CONFIG"];
/** Content type of a session with no source and no content_type in its metadata. */
export const DEFAULT_CONTENT_TYPE = "conversation";

export type ExtractOptions = {
  scope?: string;
  /** Only sessions whose id starts with this. */
  prefix?: string;
  /** Sessions in flight at once (default 1). */
  concurrency?: number;
  /** Re-extract every matching session, removing what its earlier extraction wrote first. */
  clean?: boolean;
  /** Ask the model, write nothing: the report lists what would be written. */
  dryRun?: boolean;
  onProgress?: (progress: ExtractProgress) => void;
};

export type ExtractProgress = { done: number; total: number; facts: number; errors: number; promptTokens: number; completionTokens: number };

export type PlannedFact = { subject: string; relationship: string; object: string; validFrom?: number; validUntil?: number; quote: string };

export type SessionOutcome = {
  sessionId: string;
  status: "extracted" | "failed" | "planned" | "already";
  chunks: number;
  facts: WrittenFact[];
  planned: PlannedFact[];
  createdNodes: number;
  skipped: { fact: string; reason: string }[];
  removed?: { links: number; nodes: number; restored: number };
  error?: string;
};

export type ExtractReport = {
  scope: string;
  extractor: string;
  dryRun: boolean;
  /** Matching sessions, and those left alone because an earlier run extracted them. */
  matched: number;
  alreadyExtracted: number;
  extracted: number;
  failed: number;
  facts: number;
  nodes: number;
  usage: LlmUsage;
  /** Who read the claims for fallacies: "rules", or the judge ("llm:<model>") with the rules. */
  fallacyJudge: string;
  /** Claims whose judge failed: the rule cues alone applied to them. */
  judgeFallbacks: number;
  outcomes: SessionOutcome[];
};

export type ExtractDeps = {
  store: Store;
  config: AgenticMemoryConfig;
  llm: LlmClient;
  /** The strong role's usage so far (the run reports its own share). */
  usage: () => LlmUsage;
  /** Reads each claim for fallacies before it is written (the FAST LLM); none: the rule cues alone. */
  fallacyJudge?: FallacyJudge;
  /** A node a vector search finds for a name no node carries, if any is close enough. */
  similarNode?: (name: string, scope: string, type: string) => Promise<string | undefined>;
};

/** The session's content type: its source's document type, else metadata.content_type / doc_type, else conversation. */
function contentTypeOf(store: Store, session: ExtractableSession): string {
  const source = session.sourceId ? readSource(store, session.sourceId) : undefined;
  const fromMetadata = session.metadata.content_type ?? session.metadata.doc_type;
  return source?.docType ?? (typeof fromMetadata === "string" && fromMetadata ? fromMetadata : DEFAULT_CONTENT_TYPE);
}

export async function extractSessions(deps: ExtractDeps, options: ExtractOptions = {}): Promise<ExtractReport> {
  const scope = parseScope(options.scope);
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new GllamError("E_BAD_INPUT", `--concurrency must be an integer in 1..256, got ${concurrency}`);
  const sessions = listExtractableSessions(deps.store, scope, options.prefix ?? "");
  const pending = options.clean ? sessions : sessions.filter((s) => !s.extracted);
  const before = deps.usage();
  const report: ExtractReport = {
    scope,
    extractor: deps.llm.endpoint.model,
    dryRun: options.dryRun ?? false,
    matched: sessions.length,
    alreadyExtracted: sessions.length - pending.length,
    extracted: 0,
    failed: 0,
    facts: 0,
    nodes: 0,
    usage: emptyUsage(),
    fallacyJudge: deps.fallacyJudge ? `${deps.fallacyJudge.name} + rules` : "rules",
    judgeFallbacks: 0,
    outcomes: [],
  };
  const usedSoFar = (): LlmUsage => {
    const now = deps.usage();
    return Object.fromEntries(Object.entries(now).map(([key, value]) => [key, value - before[key as keyof LlmUsage]])) as LlmUsage;
  };
  const progress = () => {
    const used = usedSoFar();
    options.onProgress?.({ done: report.outcomes.length, total: pending.length, facts: report.facts, errors: report.failed, promptTokens: used.promptTokens, completionTokens: used.completionTokens });
  };
  progress();
  let next = 0;
  let fatal: unknown;
  const worker = async () => {
    while (fatal === undefined && next < pending.length) {
      const session = pending[next++]!;
      try {
        const outcome = await extractOne(deps, scope, session, options, () => report.judgeFallbacks++);
        report.outcomes.push(outcome);
        if (outcome.status === "extracted") report.extracted++;
        report.facts += outcome.status === "planned" ? outcome.planned.length : outcome.facts.length;
        report.nodes += outcome.createdNodes;
      } catch (error) {
        if (isGllamError(error) && !FATAL.includes(error.code) && error.code !== "E_INTERNAL") {
          report.failed++;
          report.outcomes.push({ sessionId: session.id, status: "failed", chunks: 0, facts: [], planned: [], createdNodes: 0, skipped: [], error: error.message });
        } else fatal ??= error;
      }
      progress();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, pending.length)) }, worker));
  if (fatal !== undefined) throw fatal;
  report.usage = usedSoFar();
  if (!report.dryRun && pending.length > 0) recordRun(deps.store, report);
  return report;
}

/** The run's totals, kept in system_metadata (`extraction_last_run`) for `gllam stats` and audits. */
function recordRun(store: Store, report: ExtractReport): void {
  const { outcomes: _, ...totals } = report;
  store.transaction(() => writeMetadata(store.db(), "extraction_last_run", JSON.stringify({ at: Date.now(), ...totals })));
}

async function extractOne(deps: ExtractDeps, scope: string, session: ExtractableSession, options: ExtractOptions, onJudgeFailure: () => void): Promise<SessionOutcome> {
  const turns = readSessionTurns(deps.store, scope, session.id);
  const contentType = contentTypeOf(deps.store, session);
  const anchor = session.startedAt ?? undefined;
  const numbered: PromptTurn[] = turns.map((turn, i) => ({ number: i + 1, speaker: turn.speaker || turn.role, content: turn.content }));
  const messagesFor = (part: PromptTurn[], index: number, of: number) =>
    buildExtractionMessages({
      steeringPrompt: getIngestionSteeringPrompt(deps.config, contentType).prompt,
      contentType,
      sessionTitle: session.title || session.id,
      sessionDate: anchor === undefined ? undefined : formatSessionDate(anchor),
      part: { index, of },
      turns: part,
    });
  const fixed = estimateTokens(messagesFor([], 0, 2).map((m) => m.content).join("\n") + JSON.stringify(jsonSchemaOf(ExtractionSchema)));
  const chunks = numbered.length === 0 ? [] : chunkTurns(numbered, turnBudget(deps.llm.config.context_tokens, fixed));
  const merged: Extraction = { entities: [], facts: [] };
  for (const [index, part] of chunks.entries()) {
    const what = `session ${session.id}${chunks.length > 1 ? ` part ${index + 1}/${chunks.length}` : ""}`;
    const answer = await deps.llm.structured(ExtractionSchema, messagesFor(part, index, chunks.length), what, "extraction");
    merged.entities.push(...answer.entities);
    merged.facts.push(...answer.facts);
  }
  const dated = merged.facts.map((fact) => ({ ...fact, validFromMs: resolveDateText(fact.valid_from, anchor), validUntilMs: resolveDateText(fact.valid_until, anchor) }));
  const facts = deps.fallacyJudge && !options.dryRun ? await judgeFacts(deps.fallacyJudge, dated, onJudgeFailure) : dated;
  const base = { sessionId: session.id, chunks: chunks.length, createdNodes: 0, skipped: [] };
  if (options.dryRun) {
    const planned = facts.map((f) => ({ subject: f.subject, relationship: f.relationship, object: f.object, validFrom: f.validFromMs, validUntil: f.validUntilMs, quote: f.quote }));
    return { ...base, status: "planned", facts: [], planned };
  }
  const input: SessionExtractionInput = {
    scope,
    sessionId: session.id,
    extractor: deps.llm.endpoint.model,
    contentType,
    sessionSourceId: session.sourceId,
    entities: merged.entities,
    facts,
    turns: new Map(turns.map((turn: SessionTurn, i) => [i + 1, turn])),
    vectorHints: await vectorHints(deps, scope, merged),
  };
  return deps.store.transaction(() => {
    // Another process may have extracted it since this run listed it: exactly once still holds.
    if (!options.clean && isSessionExtracted(deps.store, scope, session.id)) return { ...base, status: "already", facts: [], planned: [] };
    const removed = options.clean ? removeSessionExtraction(deps.store, scope, session.id) : undefined;
    if (options.clean) unmarkSessionExtracted(deps.store, scope, session.id);
    const written = writeSessionExtraction(deps.store, deps.config, input);
    const linkCount = written.facts.filter((f) => f.action !== "duplicate").length;
    markSessionExtracted(deps.store, { scope, sessionId: session.id, extractor: input.extractor, nodeCount: written.createdNodes.length, linkCount, at: Date.now() });
    return { ...base, status: "extracted", facts: written.facts, planned: [], createdNodes: written.createdNodes.length, skipped: written.skipped, ...(removed && { removed }) };
  });
}

/** Each quoted claim read by the judge (in parallel: the server's limiter bounds it); a failed read leaves the rules alone. */
async function judgeFacts<F extends Extraction["facts"][number]>(judge: FallacyJudge, facts: F[], onFailure: () => void): Promise<(F & { judged?: FallacyFinding[]; rejected?: FallacyKind[] })[]> {
  return Promise.all(
    facts.map(async (fact) => {
      if (!fact.quote.trim()) return fact;
      const outcome = await askFallacyJudge(judge, { text: fact.quote, relationship: fact.relationship, subjectName: fact.subject, targetName: fact.object });
      if (outcome.error) onFailure();
      return { ...fact, judged: outcome.findings, rejected: outcome.rejected };
    }),
  );
}

/** Vector matches for the names no node carries yet (read before the write transaction: embedding is async). */
async function vectorHints(deps: ExtractDeps, scope: string, extraction: Extraction): Promise<Map<string, string>> {
  const hints = new Map<string, string>();
  if (!deps.similarNode) return hints;
  for (const entity of extraction.entities) {
    const key = normalizeEntityName(entity.name);
    if (hints.has(key) || [entity.name, ...entity.aliases].some((name) => knownNodeNamed(deps.store, name, scope))) continue;
    const id = await deps.similarNode(entity.name, scope, entity.type);
    if (id) hints.set(key, id);
  }
  return hints;
}
