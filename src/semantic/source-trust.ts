/**
 * Trust explain for a stored source: the composite weight its latest entry earned with the parts
 * stored beside it, what each part was based on (the document type table, the handle's heuristic or
 * its role's fallback), and how many claims it made, active and retired.
 */
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import type { Store } from "../engine/store.ts";
import type { SourceRow } from "../memory/types.ts";
import { parseScope } from "../memory/parse.ts";
import { readSource, resolveSourceId } from "./sources.ts";
import { documentTypeWeight, MAX_TRUST, MIN_TRUST, sourceAdjustment, type TrustBreakdown } from "./trust.ts";

export type SourceTrust = {
  source: SourceRow;
  /** The stored parts: W = clamp(docType + source + coherence + freshness, 10, 1000). */
  parts: { docType: TrustBreakdown["docType"]; source: TrustBreakdown["source"]; coherence: number; freshness: number };
  raw: number;
  total: number;
  bounds: [number, number];
  claims: { active: number; retired: number };
};

/** A source of the scope by id or handle (as `forget source` takes it), with its trust explained. */
export function explainSourceTrust(store: Store, config: AgenticMemoryConfig, ref: string, options: { scope?: string } = {}): SourceTrust {
  const scope = parseScope(options.scope);
  const source = readSource(store, resolveSourceId(store, ref, scope))!;
  const counts = store
    .dbRO()
    .query<{ active: number; retired: number }, [string, string]>(
      `SELECT count(*) FILTER (WHERE expired_at IS NULL) AS active, count(*) FILTER (WHERE expired_at IS NOT NULL) AS retired
       FROM semantic_links WHERE origin_source_id = ? AND +scope = ?`,
    )
    .get(source.id, scope) ?? { active: 0, retired: 0 };
  // The stored weights are what claims used; the bases are looked up again for their words.
  const docType = { ...documentTypeWeight(config, source.docType), weight: source.wDocType };
  const adjustment = { ...sourceAdjustment(config, source.handle, source.role), weight: source.wSource };
  const raw = source.wDocType + source.wSource + source.dwCoherence + source.dwFreshness;
  return {
    source,
    parts: { docType, source: adjustment, coherence: source.dwCoherence, freshness: source.dwFreshness },
    raw,
    total: source.trustWeight,
    bounds: [MIN_TRUST, MAX_TRUST],
    claims: counts,
  };
}
