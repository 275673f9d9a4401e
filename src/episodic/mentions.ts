/** The `mentioned_in` relation: which semantic nodes each episode names, kept in episode_mentions. */
import type { Database } from "bun:sqlite";
import { parseJsonColumn } from "../memory/parse.ts";
import { createMentionMatcher, type MentionMatcher } from "./linker.ts";

function loadMatcher(db: Database, scope: string): MentionMatcher {
  const nodes = db
    .query<{ id: string; name: string; aliases: string }, [string]>("SELECT id, name, aliases FROM semantic_nodes WHERE scope = ?")
    .all(scope)
    .map((row) => ({ ...row, aliases: parseJsonColumn<string[]>(row.aliases, []) }));
  return createMentionMatcher(nodes);
}

/** Links new episodes to the nodes of their scope they mention; returns how many links were written. */
export function linkEpisodeMentions(db: Database, episodes: Iterable<{ id: number; scope: string; content: string }>): number {
  const matchers = new Map<string, MentionMatcher>();
  const insert = db.query("INSERT INTO episode_mentions (episode_id, node_id) VALUES (?, ?) ON CONFLICT DO NOTHING");
  let written = 0;
  for (const episode of episodes) {
    let matcher = matchers.get(episode.scope);
    if (!matcher) matchers.set(episode.scope, (matcher = loadMatcher(db, episode.scope)));
    for (const nodeId of matcher(episode.content)) written += insert.run(episode.id, nodeId).changes;
  }
  return written;
}

/** Re-links every episode of a scope (after nodes were added): mentions are derived, so this is safe to repeat. */
export function relinkScopeMentions(db: Database, scope: string): number {
  // Row by row: holding a scope's texts at once added ~0.35 GB more at a million turns.
  return linkEpisodeMentions(db, db.query<{ id: number; scope: string; content: string }, [string]>("SELECT id, scope, content FROM episodes WHERE scope = ?").iterate(scope));
}

/** The node ids the episodes mention (episode_mentions), most-mentioned first. */
export function nodesMentionedBy(db: Database, episodeIds: number[]): string[] {
  if (episodeIds.length === 0) return [];
  return db
    .query<{ nodeId: string }, [string]>("SELECT node_id AS nodeId FROM episode_mentions WHERE episode_id IN (SELECT value FROM json_each(?)) GROUP BY node_id ORDER BY count(*) DESC, node_id")
    .all(JSON.stringify(episodeIds))
    .map((row) => row.nodeId);
}
