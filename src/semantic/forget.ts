/**
 * forget(node | link | source | episode | session): removes it and everything derived only from
 * it, from every table (links and their events, fallacy, contradiction and sense nodes, resolution
 * links, name keys, vectors of both tiers and their queues, mentions, episodes with their
 * full-text rows and the context of the turn after each, summaries), in one transaction, and
 * reports what it removed. What other evidence still supports is kept and re-attributed; a link
 * that was retired only by a forgotten one is believed again; hub caveat summaries citing what
 * went are recomputed. Then no copy of the text is left in the file: deleted content is zeroed
 * (secure_delete), the full-text index drops its tombstoned terms, and the WAL is checkpointed
 * and truncated.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { deleteVectors } from "../engine/schema.ts";
import { checkpointWAL } from "../engine/wal.ts";
import { parseInput, parseJsonColumn, parseScope } from "../memory/parse.ts";
import { ForgetTargetSchema, type ForgetTarget } from "../memory/types.ts";
import { purgeDeletedFromIndex, removeEpisodes, removeSessionRows, sessionEpisodeIds } from "../episodic/forget-episodes.ts";
import { compactNodeCaveats } from "./caveats.ts";
import { readLink, recordLinkEvent } from "./links.ts";
import { requireNode } from "./nodes.ts";
import { overlappingBelieved } from "./resolution.ts";
import { resolveSourceId } from "./sources.ts";

/** What to forget, in a scope (default "default"): a target of another scope is not found, as a missing one. */
export type { ForgetTarget };

export type ForgetReport = {
  removed: {
    nodes: string[];
    links: number[];
    sources: string[];
    episodes: number[];
    sessions: string[];
    linkEvents: number;
    nameKeys: number;
    /** Vectors of both tiers. */
    nodeVectors: number;
    episodeVectors: number;
    mentions: number;
    summaries: number;
  };
  /** Links believed again: what retired or cut them was forgotten. */
  restored: number[];
  /** Links kept because other provenance still supports them. */
  reattributed: number[];
  /** Nodes whose caveat summary was recomputed without what went. */
  recompacted: string[];
  /** Turns re-indexed because the turn before them (their full-text context) went. */
  reindexed: number;
  /**
   * Whether the WAL was checkpointed into the file and truncated. False when another connection
   * was reading an older snapshot: old pages stay in the WAL until a later checkpoint.
   */
  walPurged: boolean;
};

const ENGINE_LINK_REFS = ["claimLinkId", "winnerLinkId", "loserLinkId"];

export function forget(store: Store, input: ForgetTarget, now = Date.now()): ForgetReport {
  const target = parseInput(ForgetTargetSchema, input, "forget target");
  const scope = parseScope(target.scope);
  const run = new Forgetting(store, now);
  store.transaction(() => {
    if ("link" in target) {
      if (!readLink(store, target.link, true, scope)) throw new GllamError("E_NOT_FOUND", `no link ${target.link}`);
      run.removeLinks([target.link]);
    } else if ("node" in target) {
      requireNode(store, target.node, scope, true);
      run.removeNodes([target.node]);
    } else if ("source" in target) {
      run.removeSource(resolveSourceId(store, target.source, scope, true));
    } else if ("episode" in target) {
      if (!store.db().query("SELECT 1 FROM episodes WHERE id = ? AND scope = ?").get(target.episode, scope)) throw new GllamError("E_NOT_FOUND", `no episode ${target.episode}`);
      run.removeEpisodes([target.episode]);
    } else {
      run.removeSession(scope, target.session);
    }
    run.finish();
  });
  // After the commit (an enclosing transaction keeps it to its own end): readers of older
  // snapshots may hold the WAL, and then a later checkpoint clears it. A replicator that owns the
  // checkpoints (Litestream) clears it at its own next one.
  run.report.walPurged = !store.externalCheckpoints && !store.db().inTransaction && !checkpointWAL(store.db(), "TRUNCATE").busy;
  return run.report;
}

/**
 * Removes what a re-extraction replaces (`gllam extract --clean`): the links, with everything only
 * they caused undone (as forget does), then those of `nodeIds` no remaining link touches (a node
 * another session's facts use stays). Runs in the caller's transaction when there is one.
 */
export function forgetExtracted(store: Store, linkIds: number[], nodeIds: string[], now = Date.now()): ForgetReport {
  const run = new Forgetting(store, now);
  store.transaction(() => {
    run.removeLinks(linkIds);
    const linked = store.db().query<{ one: number }, [string]>("SELECT 1 AS one FROM semantic_links WHERE source_id = ?1 OR target_id = ?1 LIMIT 1");
    run.removeNodes(nodeIds.filter((id) => linked.get(id) === null));
    run.finish();
  });
  return run.report;
}

type Provenance = { originSourceId: string | null; episodeId: number | null; recordedAt?: number };

class Forgetting {
  readonly report: ForgetReport = {
    removed: { nodes: [], links: [], sources: [], episodes: [], sessions: [], linkEvents: 0, nameKeys: 0, nodeVectors: 0, episodeVectors: 0, mentions: 0, summaries: 0 },
    restored: [],
    reattributed: [],
    recompacted: [],
    reindexed: 0,
    walPurged: false,
  };
  readonly #store: Store;
  readonly #now: number;
  /** Ends of removed or restored links: their caveat summaries may cite what went. */
  readonly #touched = new Set<string>();

  constructor(store: Store, now: number) {
    this.#store = store;
    this.#now = now;
  }

  get #db() {
    return this.#store.db();
  }

  #ids<T>(sql: string, ...params: (string | number)[]): T[] {
    return this.#db
      .query<{ id: T }, (string | number)[]>(sql)
      .all(...params)
      .map((row) => row.id);
  }

  #touch(linkIds: number[]): void {
    const ends = this.#db
      .query<{ a: string; b: string }, [string]>("SELECT source_id AS a, target_id AS b FROM semantic_links WHERE id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(linkIds));
    for (const { a, b } of ends) this.#touched.add(a).add(b);
  }

  removeLinks(ids: number[]): void {
    const pending = ids.filter((id) => !this.report.removed.links.includes(id));
    if (pending.length === 0) return;
    this.report.removed.links.push(...pending);
    this.#touch(pending);
    const list = JSON.stringify(pending);
    // Derived only from these links: the engine links that explain them, and fallacy / contradiction nodes about them.
    const engineLinks = this.#ids<number>(
      `SELECT id FROM semantic_links WHERE json_extract(metadata, '$.engine') = 1 AND (${ENGINE_LINK_REFS.map((k) => `json_extract(metadata, '$.${k}') IN (SELECT value FROM json_each(?1))`).join(" OR ")})`,
      list,
    );
    const derivedNodes = this.#ids<string>(
      `SELECT id FROM semantic_nodes WHERE (type = 'fallacy' AND json_extract(metadata, '$.linkId') IN (SELECT value FROM json_each(?1)))
         OR (type = 'contradiction' AND EXISTS (SELECT 1 FROM json_each(semantic_nodes.metadata, '$.linkIds') j WHERE j.value IN (SELECT value FROM json_each(?1))))`,
      list,
    );
    this.#restoreRetiredBy(pending);
    this.#db.query("UPDATE semantic_links SET superseded_by = NULL WHERE superseded_by IN (SELECT value FROM json_each(?))").run(list);
    this.report.removed.linkEvents += this.#db.query("DELETE FROM semantic_link_events WHERE link_id IN (SELECT value FROM json_each(?1)) OR by_link_id IN (SELECT value FROM json_each(?1))").run(list).changes;
    this.#db.query("DELETE FROM semantic_links WHERE id IN (SELECT value FROM json_each(?))").run(list);
    this.removeLinks(engineLinks);
    this.removeNodes(derivedNodes);
  }

  /**
   * A link retired, ended or clipped by a forgotten link gets back the state it had before: the
   * earliest event that link caused is undone, unless its exclusive slot is taken meanwhile.
   */
  #restoreRetiredBy(ids: number[]): void {
    const events = this.#db
      .query<{ linkId: number; kind: string; oldValidUntil: number | null }, [string, string]>(
        `SELECT link_id AS linkId, kind, old_valid_until AS oldValidUntil FROM semantic_link_events e
         WHERE by_link_id IN (SELECT value FROM json_each(?1)) AND link_id NOT IN (SELECT value FROM json_each(?2))
           AND id = (SELECT min(id) FROM semantic_link_events f WHERE f.link_id = e.link_id AND f.by_link_id IN (SELECT value FROM json_each(?1)))`,
      )
      .all(JSON.stringify(ids), JSON.stringify(this.report.removed.links));
    for (const event of events) {
      const link = readLink(this.#store, event.linkId, true);
      if (!link) continue;
      const restored = { ...link, validUntil: event.oldValidUntil, expiredAt: null };
      if (overlappingBelieved(this.#store, restored).some((other) => !ids.includes(other.id))) continue;
      this.#db.query("UPDATE semantic_links SET valid_until = ?, expired_at = NULL, end_reason = NULL, superseded_by = NULL WHERE id = ?").run(event.oldValidUntil, link.id);
      recordLinkEvent(this.#store, { linkId: link.id, at: this.#now, kind: "restored", oldValidUntil: link.validUntil, newValidUntil: event.oldValidUntil, oldExpiredAt: link.expiredAt, detail: "what retired it was forgotten" });
      this.report.restored.push(link.id);
      this.#touch([link.id]);
    }
  }

  removeNodes(ids: string[]): void {
    const pending = ids.filter((id) => !this.report.removed.nodes.includes(id));
    if (pending.length === 0) return;
    this.report.removed.nodes.push(...pending);
    const list = JSON.stringify(pending);
    this.removeLinks(this.#ids<number>("SELECT id FROM semantic_links WHERE source_id IN (SELECT value FROM json_each(?1)) OR target_id IN (SELECT value FROM json_each(?1))", list));
    const removed = this.report.removed;
    removed.nameKeys += this.#db.query("DELETE FROM semantic_node_names WHERE node_id IN (SELECT value FROM json_each(?))").run(list).changes;
    removed.mentions += this.#db.query("DELETE FROM episode_mentions WHERE node_id IN (SELECT value FROM json_each(?))").run(list).changes;
    const vectors = deleteVectors(this.#db, "nodes", pending);
    removed.nodeVectors += vectors.model + vectors.static;
    this.#db.query("UPDATE sources SET node_id = NULL WHERE node_id IN (SELECT value FROM json_each(?))").run(list);
    // node_vector_queue follows by cascade.
    this.#db.query("DELETE FROM semantic_nodes WHERE id IN (SELECT value FROM json_each(?))").run(list);
    // The senses a node was split into (disambiguation) are named after it: they go with it.
    this.removeNodes(this.#ids<string>("SELECT id FROM semantic_nodes WHERE json_extract(metadata, '$.senseOf') IN (SELECT value FROM json_each(?))", list));
  }

  removeSource(sourceId: string): void {
    const source = this.#db.query<{ nodeId: string | null }, [string]>("SELECT node_id AS nodeId FROM sources WHERE id = ?").get(sourceId);
    if (!source) throw new GllamError("E_NOT_FOUND", `no source ${sourceId}`);
    const episodes = this.#ids<number>("SELECT id FROM episodes WHERE source_id = ?", sourceId);
    this.#dropProvenance((p) => p.originSourceId === sourceId || (p.episodeId !== null && episodes.includes(p.episodeId)), { sourceId, episodes });
    this.#removeEpisodeRows(episodes);
    this.#db.query("UPDATE sessions SET source_id = NULL WHERE source_id = ?").run(sourceId);
    this.#db.query("DELETE FROM sources WHERE id = ?").run(sourceId);
    this.report.removed.sources.push(sourceId);
    if (source.nodeId) this.removeNodes([source.nodeId]);
  }

  removeEpisodes(ids: number[]): void {
    this.#dropProvenance((p) => p.episodeId !== null && ids.includes(p.episodeId), { episodes: ids });
    this.#removeEpisodeRows(ids);
  }

  removeSession(scope: string, sessionId: string): void {
    const episodes = sessionEpisodeIds(this.#db, scope, sessionId);
    if (!episodes) throw new GllamError("E_NOT_FOUND", `no session ${sessionId}${scope === "default" ? "" : ` in scope ${scope}`}`);
    this.removeEpisodes(episodes);
    this.report.removed.summaries += removeSessionRows(this.#db, scope, sessionId);
    this.report.removed.sessions.push(sessionId);
  }

  /** Recomputes the caveat summaries that may cite what went, and purges the full-text index when episodes went. */
  finish(): void {
    for (const nodeId of this.#touched) {
      const row = this.#db
        .query<{ scope: string; summary: string; metadata: string }, [string]>("SELECT scope, caveat_summary AS summary, metadata FROM semantic_nodes WHERE id = ?")
        .get(nodeId);
      const compaction = row && parseJsonColumn<{ caveatCompaction?: { inlineLinkIds?: number[] } }>(row.metadata, {}).caveatCompaction;
      if (!row?.summary || !compaction?.inlineLinkIds) continue;
      compactNodeCaveats(this.#store, nodeId, compaction.inlineLinkIds.length, { scope: row.scope, now: this.#now });
      this.report.recompacted.push(nodeId);
    }
    if (this.report.removed.episodes.length > 0) purgeDeletedFromIndex(this.#db);
  }

  /**
   * Links whose every piece of provenance is gone are removed; the others lose that provenance
   * and, when it was their origin, take the next one as origin.
   */
  #dropProvenance(gone: (p: Provenance) => boolean, by: { sourceId?: string; episodes: number[] }): void {
    const episodes = JSON.stringify(by.episodes);
    const candidates = this.#db
      .query<Provenance & { id: number; metadata: string }, [string | null, string]>(
        `SELECT id, origin_source_id AS originSourceId, episode_id AS episodeId, metadata FROM semantic_links
         WHERE origin_source_id = ?1 OR episode_id IN (SELECT value FROM json_each(?2))
            OR (metadata LIKE '%"provenance"%' AND EXISTS (SELECT 1 FROM json_each(semantic_links.metadata, '$.provenance') p
                WHERE json_extract(p.value, '$.originSourceId') = ?1 OR json_extract(p.value, '$.episodeId') IN (SELECT value FROM json_each(?2))))`,
      )
      .all(by.sourceId ?? null, episodes);
    const remove: number[] = [];
    for (const link of candidates) {
      const metadata = parseJsonColumn<{ provenance?: Provenance[] }>(link.metadata, {});
      const all = [{ originSourceId: link.originSourceId, episodeId: link.episodeId }, ...(metadata.provenance ?? [])];
      const kept = all.filter((p) => !gone(p));
      if (kept.length === 0) {
        remove.push(link.id);
        continue;
      }
      const [origin, ...rest] = kept as [Provenance, ...Provenance[]];
      this.#db
        .query("UPDATE semantic_links SET origin_source_id = ?, episode_id = ?, evidence_count = ?, metadata = ? WHERE id = ?")
        .run(origin.originSourceId, origin.episodeId, kept.length, JSON.stringify({ ...metadata, provenance: rest }), link.id);
      this.report.reattributed.push(link.id);
    }
    this.removeLinks(remove);
  }

  #removeEpisodeRows(ids: number[]): void {
    if (ids.length === 0) return;
    const removed = removeEpisodes(this.#db, ids);
    this.report.removed.episodes.push(...ids);
    this.report.removed.episodeVectors += removed.episodeVectors;
    this.report.removed.mentions += removed.mentions;
    this.report.removed.summaries += removed.summaries;
    this.report.reindexed += removed.reindexed;
  }
}
