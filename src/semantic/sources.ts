/**
 * Sources: where claims come from. A source is an individual (handle) within a document type or
 * repository; it has a node in the graph (type `source`) and a composite trust weight whose parts
 * are stored beside it (sources.w_doc_type, w_source, dw_coherence, dw_freshness).
 */
import { normalizeKey } from "../config/keys.ts";
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { NODE_TYPES, SourceInputSchema, type SourceInput, type SourceRow } from "../memory/types.ts";
import { parseInput, parseJsonColumn } from "../memory/parse.ts";
import { nodeIdFor } from "./ids.ts";
import { upsertNode } from "./nodes.ts";
import { computeTrustWeight, type TrustBreakdown } from "./trust.ts";

type SourceDbRow = Omit<SourceRow, "metadata"> & { metadata: string };

const SOURCE_COLUMNS = `id, scope, doc_type AS docType, handle, display_name AS displayName, role, uri, node_id AS nodeId,
  trust_weight AS trustWeight, w_doc_type AS wDocType, w_source AS wSource, dw_coherence AS dwCoherence,
  dw_freshness AS dwFreshness, authored_at AS authoredAt, metadata, created_at AS createdAt, updated_at AS updatedAt`;

export function readSource(store: Store, id: string, fromWriter = false): SourceRow | undefined {
  const row = (fromWriter ? store.db() : store.dbRO()).query<SourceDbRow, [string]>(`SELECT ${SOURCE_COLUMNS} FROM sources WHERE id = ?`).get(id);
  return row ? { ...row, metadata: parseJsonColumn<Record<string, unknown>>(row.metadata, {}) } : undefined;
}

/** Stable ids: the same individual in the same container is one source (normalised keys hold no "/"). */
export function sourceIdFor(scope: string, docType: string, handle: string): string {
  return nodeIdFor(scope, `source:${normalizeKey(docType)}:${normalizeKey(handle) || "_"}`);
}

export type UpsertSourceResult = { source: SourceRow; breakdown: TrustBreakdown; created: boolean };

/**
 * Creates or updates a source with the composite trust weight of its latest entry (`text`), and
 * creates or reuses its node. Each entry's own weight is returned so the claim keeps it.
 */
export function upsertSource(store: Store, config: AgenticMemoryConfig, input: SourceInput & { text?: string }, now = Date.now()): UpsertSourceResult {
  const source = parseInput(SourceInputSchema, input, "source");
  if (!normalizeKey(source.docType)) throw new GllamError("E_BAD_INPUT", `invalid source: docType "${source.docType}" has no letters or digits`);
  const breakdown = computeTrustWeight({ docType: source.docType, handle: source.handle, role: source.role, text: input.text, authoredAt: source.authoredAt }, config, now);
  // The table's key, so every spelling of a document type ("Merged Pull Request", merged_pr) is one container.
  const docType = breakdown.docType.key;
  const id = source.id ?? sourceIdFor(source.scope, docType, source.handle);
  return store.transaction(() => {
    const existing = readSource(store, id, true);
    if (existing && existing.scope !== source.scope) throw new GllamError("E_CONFLICT", `source id "${id}" is taken: choose another id`);
    const name = source.displayName || source.handle || docType;
    upsertNode(store, {
      id,
      scope: source.scope,
      name,
      type: NODE_TYPES.source,
      aliases: source.handle && source.handle !== name ? [source.handle] : [],
      metadata: { docType, handle: source.handle, role: source.role },
    });
    store
      .db()
      .query(
        `INSERT INTO sources (id, scope, doc_type, handle, display_name, role, uri, node_id, trust_weight, w_doc_type, w_source,
           dw_coherence, dw_freshness, authored_at, metadata, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name, role = excluded.role, uri = excluded.uri,
           trust_weight = excluded.trust_weight, w_doc_type = excluded.w_doc_type, w_source = excluded.w_source,
           dw_coherence = excluded.dw_coherence, dw_freshness = excluded.dw_freshness, authored_at = excluded.authored_at,
           metadata = excluded.metadata, updated_at = excluded.updated_at`,
      )
      .run(
        id,
        source.scope,
        docType,
        source.handle,
        source.displayName,
        source.role,
        source.uri,
        id,
        breakdown.total,
        breakdown.docType.weight,
        breakdown.source.weight,
        breakdown.coherence.delta,
        breakdown.freshness.delta,
        source.authoredAt ?? null,
        JSON.stringify(source.metadata),
        existing?.createdAt ?? now,
        now,
      );
    return { source: readSource(store, id, true)!, breakdown, created: !existing };
  });
}

export type AttributedEntry = { sourceId: string; trustWeight: number; breakdown: TrustBreakdown };

/**
 * Seed: AttributeContainerEntryToSource. A comment inside a Jira issue (or a Confluence page, a
 * pull request) is attributed to its individual author, not to the container: the author's
 * source node is created or reused, and the entry's trust weight is computed from the container's
 * document type, the author's heuristics, the entry text's coherence and its age.
 */
export function attributeContainerEntryToSource(
  store: Store,
  config: AgenticMemoryConfig,
  entry: { repoType: string; handle: string; displayName?: string; text: string; at?: number; role?: string; scope?: string },
  now = Date.now(),
): AttributedEntry {
  if (!entry.handle.trim()) throw new GllamError("E_BAD_INPUT", `container entry of ${entry.repoType}: the author's handle is empty`);
  const { source, breakdown } = upsertSource(
    store,
    config,
    { scope: entry.scope, docType: entry.repoType, handle: entry.handle.trim(), displayName: entry.displayName ?? "", role: entry.role ?? "", authoredAt: entry.at, text: entry.text },
    now,
  );
  return { sourceId: source.id, trustWeight: breakdown.total, breakdown };
}

/**
 * The source a user means: its id, else its handle (case-insensitively) within the scope. A handle
 * several sources share (one per document type) is refused with their ids.
 */
export function resolveSourceId(store: Store, ref: string, scope = "default", fromWriter = false): string {
  const db = fromWriter ? store.db() : store.dbRO();
  if (db.query("SELECT 1 FROM sources WHERE id = ? AND scope = ?").get(ref, scope)) return ref;
  const candidates = db
    .query<{ id: string }, [string, string]>("SELECT id FROM sources WHERE scope = ? AND handle = ? COLLATE NOCASE ORDER BY id")
    .all(scope, ref)
    .map((row) => row.id);
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) throw new GllamError("E_NOT_FOUND", `no source ${ref}${scope === "default" ? "" : ` in scope ${scope}`} (neither an id nor a handle)`);
  throw new GllamError("E_BAD_INPUT", `handle "${ref}" names ${candidates.length} sources: ${candidates.join(", ")}; give the id`);
}
