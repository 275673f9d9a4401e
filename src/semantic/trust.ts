/**
 * Composite trust weight (seed: "Multi-Factor Composite Trust Weight Calculation"), pure:
 *   W = clamp(W_doc_type + W_source + dW_coherence + dW_freshness, 10, 1000)
 * Every part is returned with what it was based on, so each resolution can be explained.
 */
import { normalizeKey, ownEntry } from "../config/keys.ts";
import type { AgenticMemoryConfig } from "../config/prompts.ts";

export const MIN_TRUST = 10;
export const MAX_TRUST = 1000;

export type TrustInput = {
  docType: string;
  /** The individual within the container (a person's handle, a bot). */
  handle?: string;
  /** Fallback when the handle has no heuristic of its own (tech_lead, system_cicd, ...). */
  role?: string;
  /** The entry's text: its coherence is checked. */
  text?: string;
  /** When the entry was written (epoch ms): its freshness. */
  authoredAt?: number;
};

export type Coherence = { delta: number; verdict: "prose" | "gibberish" | "neutral" | "empty"; entropy: number; lexicalRatio: number; why: string };
export type Freshness = { delta: number; band: "fresh" | "current" | "stale" | "old" | "unknown"; ageDays: number | null };

export type TrustBreakdown = {
  total: number;
  raw: number;
  clamped: boolean;
  /** `key` is the table's key; `alias` the normalised spelling given when an alias led to it. */
  docType: { key: string; weight: number; basis: "custom_rule" | "table" | "default"; alias?: string };
  source: { weight: number; basis: "handle" | "role" | "none"; key: string; alias?: string };
  coherence: Coherence;
  freshness: Freshness;
};

type TrustConfig = Pick<
  AgenticMemoryConfig,
  | "document_type_trust_weights"
  | "custom_document_type_rules"
  | "default_document_type_trust_weight"
  | "source_reliability_heuristics"
  | "role_reliability_heuristics"
  | "document_type_aliases"
  | "source_aliases"
  | "role_aliases"
>;

const DAY = 86_400_000;

export const clampTrust = (weight: number) => Math.min(MAX_TRUST, Math.max(MIN_TRUST, Math.round(weight)));

/**
 * The entry a spelling names: the table's own key in normalised form, else the key an alias of
 * that form leads to ("Approved Architecture Doc" -> architecture_doc_approved).
 */
function lookUp<T>(spelling: string, find: (key: string) => T | undefined, aliases: Record<string, string>): { key: string; alias?: string; entry?: T } {
  const key = normalizeKey(spelling);
  const entry = key ? find(key) : undefined;
  const target = entry === undefined && key ? ownEntry(aliases, key) : undefined;
  if (target === undefined) return { key, entry };
  return { key: target, alias: key, entry: find(target) };
}

type DocTypeBasis = TrustBreakdown["docType"]["basis"];

export function documentTypeWeight(config: TrustConfig, docType: string): TrustBreakdown["docType"] {
  const rules = Object.entries(config.custom_document_type_rules);
  const find = (key: string): { weight: number; basis: DocTypeBasis } | undefined => {
    const rule = rules.find(([ruleKey, rule]) => normalizeKey(rule.type_name) === key || ruleKey === key)?.[1];
    if (rule) return { weight: rule.baseline_trust_weight, basis: "custom_rule" };
    const listed = ownEntry(config.document_type_trust_weights, key);
    return listed === undefined ? undefined : { weight: listed, basis: "table" };
  };
  const { key, alias, entry } = lookUp(docType, find, config.document_type_aliases);
  return { key, ...(entry ?? { weight: config.default_document_type_trust_weight, basis: "default" }), ...(alias ? { alias } : {}) };
}

/** Per-handle heuristics first, then the role's; an unknown individual without a role counts 0. */
export function sourceAdjustment(config: TrustConfig, handle = "", role = ""): TrustBreakdown["source"] {
  const byHandle = lookUp(handle, (key) => ownEntry(config.source_reliability_heuristics, key), config.source_aliases);
  if (byHandle.entry !== undefined) return { weight: byHandle.entry, basis: "handle", key: byHandle.key, ...(byHandle.alias ? { alias: byHandle.alias } : {}) };
  const byRole = lookUp(role, (key) => ownEntry(config.role_reliability_heuristics, key), config.role_aliases);
  if (byRole.entry !== undefined) return { weight: byRole.entry, basis: "role", key: byRole.key, ...(byRole.alias ? { alias: byRole.alias } : {}) };
  return { weight: 0, basis: "none", key: byHandle.key };
}

/** Shannon entropy of the character distribution, in bits per character. */
export function characterEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  let entropy = 0;
  for (const count of counts.values()) entropy -= (count / total) * Math.log2(count / total);
  return entropy;
}

/**
 * Whether a token reads like a word of some language or a technical token: numbers and versions,
 * short acronyms, or letters with a vowel, no run of five consonants and no letter tripled.
 */
function isLexical(token: string): boolean {
  if (/^[\d.,:%/-]+[a-z]{0,3}$/i.test(token)) return true;
  if (/^[A-Z0-9]{1,5}s?$/.test(token)) return true;
  const word = token.replace(/['’-]/g, "");
  if (!/^\p{L}+\d*$/u.test(word) || word.length > 30) return false;
  if (!/\p{L}/u.test(word) || /(.)\1\1/iu.test(word)) return false;
  if (/^[a-z]+$/i.test(word)) return /[aeiouy]/i.test(word) && !/[bcdfghjklmnpqrstvwxz]{5}/i.test(word);
  return true; // other scripts: no vowel rule
}

const charClass = (c: string) => (/\p{Lu}/u.test(c) ? 0 : /\p{Ll}/u.test(c) ? 1 : /\p{N}/u.test(c) ? 2 : 3);

/** How often neighbouring characters change class (upper, lower, digit, other): random strings switch constantly. */
function classSwitchRatio(text: string): number {
  const chars = [...text];
  let switches = 0;
  for (let i = 1; i < chars.length; i++) if (charClass(chars[i]!) !== charClass(chars[i - 1]!)) switches++;
  return switches / Math.max(1, chars.length - 1);
}

/**
 * Internal semantic coherence: +50 for text that reads as prose, -250 for noise (denial-of-service
 * floods, keyboard mashing, random strings), 0 when too short to tell.
 */
export function assessCoherence(text: string): Coherence {
  const trimmed = text.trim();
  if (!trimmed) return { delta: 0, verdict: "empty", entropy: 0, lexicalRatio: 0, why: "no text" };
  const entropy = characterEntropy(trimmed);
  const tokens = trimmed.split(/\s+/).map((t) => t.replace(/^[("'[{<]+|[)"'\]}>.,;:!?]+$/g, "")).filter(Boolean);
  const lexicalRatio = tokens.length === 0 ? 0 : tokens.filter(isLexical).length / tokens.length;
  const symbols = [...trimmed].filter((c) => !/[\p{L}\p{N}\s.,;:!?'"()\-/@#%&+=_*<>[\]]/u.test(c)).length / [...trimmed].length;
  const round = (x: number) => Math.round(x * 100) / 100;
  const base = { entropy: round(entropy), lexicalRatio: round(lexicalRatio) };
  if (trimmed.length >= 20 && entropy < 2.5) return { ...base, delta: -250, verdict: "gibberish", why: "repetitive characters (low entropy)" };
  if (symbols > 0.25) return { ...base, delta: -250, verdict: "gibberish", why: "mostly non-lexical symbols" };
  if (tokens.length >= 3 && lexicalRatio < 0.5) return { ...base, delta: -250, verdict: "gibberish", why: "most tokens are not words" };
  if (tokens.length === 1 && trimmed.length >= 16 && classSwitchRatio(trimmed) > 0.5) return { ...base, delta: -250, verdict: "gibberish", why: "one long random-looking token" };
  if (tokens.length >= 3 && lexicalRatio >= 0.75 && entropy >= 3 && entropy <= 5.2) return { ...base, delta: 50, verdict: "prose", why: "reads as prose" };
  return { ...base, delta: 0, verdict: "neutral", why: "too short or mixed to judge" };
}

/** Temporal freshness bands: under 30 days +50, over 6 months -50, over a year -150. */
export function assessFreshness(authoredAt: number | undefined, now: number): Freshness {
  if (authoredAt === undefined) return { delta: 0, band: "unknown", ageDays: null };
  const ageDays = Math.max(0, Math.floor((now - authoredAt) / DAY));
  if (ageDays < 30) return { delta: 50, band: "fresh", ageDays };
  if (ageDays > 365) return { delta: -150, band: "old", ageDays };
  if (ageDays > 182) return { delta: -50, band: "stale", ageDays };
  return { delta: 0, band: "current", ageDays };
}

export function computeTrustWeight(input: TrustInput, config: TrustConfig, now = Date.now()): TrustBreakdown {
  const docType = documentTypeWeight(config, input.docType);
  const source = sourceAdjustment(config, input.handle, input.role);
  const coherence = assessCoherence(input.text ?? "");
  const freshness = assessFreshness(input.authoredAt, now);
  const raw = docType.weight + source.weight + coherence.delta + freshness.delta;
  const total = clampTrust(raw);
  return { total, raw, clamped: total !== raw, docType, source, coherence, freshness };
}

/** One line per part, for `gllam trust explain` and resolution reasons. */
export function explainTrust(breakdown: TrustBreakdown): string[] {
  const sign = (n: number) => (n >= 0 ? `+${n}` : String(n));
  const { docType, source, coherence, freshness } = breakdown;
  const via = (alias?: string) => (alias ? `, alias ${alias}` : "");
  const docBasis = { custom_rule: "custom document type rule", table: "document type table", default: "unknown document type, default base" }[docType.basis] + via(docType.alias);
  const sourceBasis = { handle: `heuristic for handle ${source.key}`, role: `role fallback ${source.key}`, none: "no heuristic for this handle or role" }[source.basis] + via(source.alias);
  return [
    `W_doc_type     ${String(docType.weight).padStart(5)}  ${docType.key} (${docBasis})`,
    `W_source       ${sign(source.weight).padStart(5)}  ${sourceBasis}`,
    `dW_coherence   ${sign(coherence.delta).padStart(5)}  ${coherence.verdict}: ${coherence.why} (entropy ${coherence.entropy} bits/char, ${Math.round(coherence.lexicalRatio * 100)}% words)`,
    `dW_freshness   ${sign(freshness.delta).padStart(5)}  ${freshness.ageDays === null ? "age unknown" : `${freshness.band}, ${freshness.ageDays} days old`}`,
    `W_composite    ${String(breakdown.total).padStart(5)}  clamp(${breakdown.raw}, ${MIN_TRUST}, ${MAX_TRUST})${breakdown.clamped ? " (clamped)" : ""}`,
  ];
}
