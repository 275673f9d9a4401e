/**
 * forget(node | link | source): removes it and everything derived only from it, from every table
 * (links and their events, fallacy and contradiction nodes, resolution links, name keys, node and
 * episode vectors, mentions, episodes and their full-text rows), in one transaction, and reports
 * what it removed. What other evidence still supports is kept and re-attributed; a link that was
 * retired only by a forgotten one is believed again.
 */
import type { Store } from "../engine/store.ts";
import { GllamError } from "../engine/errors.ts";
import { hasVectorTables } from "../engine/schema.ts";
import { parseJsonColumn, parseScope } from "../memory/parse.ts";
import { readLink, recordLinkEvent } from "./links.ts";
import { requireNode } from "./nodes.ts";
import { overlappingBelieved } from "./resolution.ts";

/** What to forget, in a scope (default "default"): a node, link or source of another scope is not found, as a missing one. */
export type ForgetTarget = ({ node: string } | { link: number } | { source: string }) & { scope?: string };

export type ForgetReport = {
  removed: {
    nodes: string[];
    links: number[];
    sources: string[];
    episodes: number[];
    linkEvents: number;
    nameKeys: number;
    nodeVectors: number;
    episodeVectors: number;
    mentions: number;
  };
  /** Links believed again: what retired or cut them was forgotten. */
  restored: number[];
  /** Links kept because other provenance still supports them. */
  reattributed: number[];
};

const ENGINE_LINK_REFS = ["claimLinkId", "winnerLinkId", "loserLinkId"];

export function forget(store: Store, target: ForgetTarget, now = Date.now()): ForgetReport {
  const scope = parseScope(target.scope);
  return store.transaction(() => {
    const run = new Forgetting(store, now);
    if ("link" in target) {
      if (!readLink(store, target.link, true, scope)) throw new GllamError("E_NOT_FOUND", `no link ${target.link}`);
      run.removeLinks([target.link]);
    } else if ("node" in target) {
      requireNode(store, target.node, scope, true);
      run.removeNodes([target.node]);
    } else {
      if (!store.db().query("SELECT 1 FROM sources WHERE id = ? AND scope = ?").get(target.source, scope)) throw new GllamError("E_NOT_FOUND", `no source ${target.source}`);
      run.removeSource(target.source);
    }
    return run.report;
  });
}

type Provenance = { originSourceId: string | null; episodeId: number | null; recordedAt?: number };

class Forgetting {
  readonly report: ForgetReport = {
    removed: { nodes: [], links: [], sources: [], episodes: [], linkEvents: 0, nameKeys: 0, nodeVectors: 0, episodeVectors: 0, mentions: 0 },
    restored: [],
    reattributed: [],
  };
  readonly #store: Store;
  readonly #now: number;
  readonly #vectors: boolean;

  constructor(store: Store, now: number) {
    this.#store = store;
    this.#now = now;
    this.#vectors = hasVectorTables(store.db());
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

  removeLinks(ids: number[]): void {
    const pending = ids.filter((id) => !this.report.removed.links.includes(id));
    if (pending.length === 0) return;
    this.report.removed.links.push(...pending);
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
    if (this.#vectors) removed.nodeVectors += this.#db.query("DELETE FROM semantic_embeddings WHERE node_id IN (SELECT value FROM json_each(?))").run(list).changes;
    this.#db.query("UPDATE sources SET node_id = NULL WHERE node_id IN (SELECT value FROM json_each(?))").run(list);
    this.#db.query("DELETE FROM semantic_nodes WHERE id IN (SELECT value FROM json_each(?))").run(list);
  }

  removeSource(sourceId: string): void {
    const source = this.#db.query<{ nodeId: string | null }, [string]>("SELECT node_id AS nodeId FROM sources WHERE id = ?").get(sourceId);
    if (!source) throw new GllamError("E_NOT_FOUND", `no source ${sourceId}`);
    const episodes = this.#ids<number>("SELECT id FROM episodes WHERE source_id = ?", sourceId);
    this.#dropProvenance(sourceId, episodes);
    this.#removeEpisodes(episodes);
    this.#db.query("UPDATE sessions SET source_id = NULL WHERE source_id = ?").run(sourceId);
    this.#db.query("DELETE FROM sources WHERE id = ?").run(sourceId);
    this.report.removed.sources.push(sourceId);
    if (source.nodeId) this.removeNodes([source.nodeId]);
  }

  /**
   * Links whose every piece of provenance came from the source (or its episodes) are removed; the
   * others lose that provenance and, when it was their origin, take the next one as origin.
   */
  #dropProvenance(sourceId: string, episodes: number[]): void {
    const gone = (p: Provenance) => p.originSourceId === sourceId || (p.episodeId !== null && episodes.includes(p.episodeId));
    const candidates = this.#db
      .query<Provenance & { id: number; metadata: string }, [string, string, string]>(
        `SELECT id, origin_source_id AS originSourceId, episode_id AS episodeId, metadata FROM semantic_links
         WHERE origin_source_id = ?1 OR episode_id IN (SELECT value FROM json_each(?2))
            OR (metadata LIKE '%"provenance"%' AND EXISTS (SELECT 1 FROM json_each(semantic_links.metadata, '$.provenance') p
                WHERE json_extract(p.value, '$.originSourceId') = ?3))`,
      )
      .all(sourceId, JSON.stringify(episodes), sourceId);
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

  #removeEpisodes(ids: number[]): void {
    if (ids.length === 0) return;
    const list = JSON.stringify(ids);
    this.report.removed.mentions += this.#db.query("DELETE FROM episode_mentions WHERE episode_id IN (SELECT value FROM json_each(?))").run(list).changes;
    if (this.#vectors) this.report.removed.episodeVectors += this.#db.query("DELETE FROM episode_vectors WHERE episode_id IN (SELECT value FROM json_each(?))").run(list).changes;
    // The episodes_fts rows go with them (episodes_fts_delete trigger).
    this.#db.query("DELETE FROM episodes WHERE id IN (SELECT value FROM json_each(?))").run(list);
    this.report.removed.episodes.push(...ids);
  }
}
