/**
 * Hot queries must not scan a scope: at a million episodes a plan that walks every row of the
 * scope (a SCAN, or an index search constrained by the scope alone) costs seconds. Every statement
 * the hot read paths prepare is captured while they run, then planned with EXPLAIN QUERY PLAN.
 */
import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { buildScopeCells, knnCells } from "../../src/episodic/episode-cells.ts";
import { maintainLexicon } from "../../src/episodic/lexicon/build.ts";
import { termDocuments } from "../../src/episodic/lookup.ts";
import { readMetadata } from "../../src/engine/metadata.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

const unitVector = (dims: number) => Float32Array.from({ length: dims }, () => 1 / Math.sqrt(dims));

let gllam: Gllam;
let staticDims: number;
const DAY = 86_400_000;
const LEXICON = { from: 10, block: 4, fanout: 2 };
const T0 = Date.parse("2026-01-05T10:00:00Z");

beforeAll(async () => {
  gllam = await openTempGllam(makeTempDir());
  await gllam.seedSampleMemory();
  for (const session of ["s1", "s2"]) {
    gllam.addEpisodes(
      ["Caddy binds to the Tailscale FQDN", "Prometheus scrapes caddy every minute", "Postgres backups run nightly"].map((content, seq) => ({
        sessionId: session,
        seq,
        speaker: seq % 2 ? "Ana" : "Bo",
        content: `${content} (${session})`,
        occurredAt: T0 + seq * DAY,
      })),
    );
  }
  staticDims = Number(readMetadata(gllam.dbRO(), "static_dims"));
  gllam.store.transaction(() => buildScopeCells(gllam.db(), "static", "default", staticDims));
  // A scope with an episode lexicon (small blocks; a scope past 50K gets one at ingest), and 8
  // episodes waiting past its last block.
  const big = (from: number, count: number) =>
    Array.from({ length: count }, (_, n) => ({ scope: "big", sessionId: `b${(from + n) % 4}`, seq: Math.floor((from + n) / 4), content: `caddy restarted ${from + n} times on host ${(from + n) % 7}` }));
  gllam.addEpisodes(big(0, 40));
  gllam.store.transaction(() => maintainLexicon(gllam.db(), ["big"], LEXICON));
  gllam.addEpisodes(big(40, 8));
  gllam.saveEpisodicSummary({ scope: "default", sessionId: "s1", summary: "deploying caddy", startTime: T0, endTime: T0 + DAY });
  return () => gllam.close();
});

/** Runs `action` and returns every SQL text prepared meanwhile (bun caches statements, so caching is bypassed by recording query and prepare both). */
async function captureSql(action: () => unknown): Promise<string[]> {
  const proto = Database.prototype as unknown as Record<"query" | "prepare", (this: Database, sql: string, ...rest: unknown[]) => unknown>;
  const original = { query: proto.query, prepare: proto.prepare };
  const seen = new Set<string>();
  for (const name of ["query", "prepare"] as const) {
    proto[name] = function (this: Database, sql: string, ...rest: unknown[]) {
      seen.add(sql);
      return original[name].call(this, sql, ...rest);
    };
  }
  try {
    await action();
  } finally {
    Object.assign(proto, original);
  }
  return [...seen];
}

/**
 * Tables read whole on purpose: the schema, a scope's speakers (a handful, kept by triggers for
 * this), the cells' bookkeeping (one row per scope with cells, keyed by it; two rows of centroids)
 * and a scope's lexicon blocks (a few dozen at a million episodes).
 */
const SMALL_TABLES = /^(SCAN|SEARCH) (sqlite_schema|episode_speakers|(static|model)_cell_(scopes|centroids)|episode_lexicon_blocks)\b/;

/** The lines of a plan that read a scope whole: a table SCAN, or an index search keyed by nothing but the scope. */
function scopeScans(plan: string[]): string[] {
  // A subquery's rows (a LIMITed FTS5 ranking, say) are read in full by design: not a table.
  const subqueries = new Set(plan.flatMap((line) => /^(?:CO-ROUTINE|MATERIALIZE) (\w+)$/.exec(line)?.[1] ?? []));
  return plan.filter((line) => {
    if (subqueries.has(/^SCAN (\w+)$/.exec(line)?.[1] ?? "")) return false;
    if (/VIRTUAL TABLE/.test(line) || /SCAN (CONSTANT ROW|json_each)/.test(line) || SMALL_TABLES.test(line)) return false;
    if (/^SCAN \w+( AS \w+)?( USING (COVERING )?INDEX \w+)?$/.test(line) && !/USE TEMP B-TREE/.test(line)) return true;
    return /\(scope=\?\)$/.test(line);
  });
}

function explain(db: Database, sql: string): string[] {
  return db
    .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`)
    .all()
    .map((row) => row.detail);
}

const HOT_PATHS: [string, () => unknown][] = [
  ["recall (words, static and model tiers)", () => gllam.recall("how does caddy reach tailscale")],
  ["recall with entities (mentions filter)", () => gllam.recall("backups", { entities: ["postgres", "caddy"] })],
  ["recall as of a date, in a window", () => gllam.recall("caddy", { asOf: T0 + DAY, window: { start: T0, end: T0 + 2 * DAY } })],
  ["recall naming a speaker", () => gllam.recall("what did Ana say about prometheus")],
  ["facts of a node", () => gllam.facts("caddy")],
  ["node lookups by name and alias", () => [gllam.findNodesByName("pg"), gllam.lookUpName("Caddy")]],
  ["summaries of a session", () => gllam.getEpisodicSummaries({ sessionId: "s1" })],
  ["recent episodes of a session", () => gllam.getRecentEpisodes(5, { sessionId: "s2" })],
  ["episodes in a window", () => gllam.getEpisodesInWindow(T0, T0 + DAY, { limit: 10 })],
  // What a scope past the thresholds adds (the cells are built by hand here; a file past 50K
  // episodes gets them at ingest): KNN over the nearest cells, and a query word's share.
  ["static KNN over cells, a word's share", () => [knnCells(gllam.dbRO(), "static", unitVector(staticDims), 20, "default"), termDocuments(gllam.dbRO(), "caddy")]],
  // The episode lexicon of a scope past 50K (small blocks here): building it, merging, ranking by it.
  [
    "the episode lexicon: new blocks, merges, ranking",
    () => {
      gllam.store.transaction(() => maintainLexicon(gllam.db(), ["big"], LEXICON));
      return gllam.recall("caddy restarted on host", { scope: "big" });
    },
  ],
];

describe("hot query plans", () => {
  test.each(HOT_PATHS)("%s: no statement scans a scope", async (_name, action) => {
    const statements = (await captureSql(action)).filter((sql) => /^\s*(WITH|SELECT)\b/i.test(sql));
    expect(statements.length).toBeGreaterThan(0);
    const db = gllam.dbRO();
    const scans = statements.flatMap((sql) => scopeScans(explain(db, sql)).map((line) => `${line}  <-  ${sql.replace(/\s+/g, " ").slice(0, 160)}`));
    expect(scans).toEqual([]);
  });

  test("the detector flags a scope scan and passes a keyed search", () => {
    const db = gllam.dbRO();
    expect(scopeScans(explain(db, "SELECT id FROM episodes WHERE scope = 'default' ORDER BY created_at"))).not.toEqual([]);
    expect(scopeScans(explain(db, "SELECT count(*) FROM semantic_links"))).not.toEqual([]);
    expect(scopeScans(explain(db, "SELECT id FROM episodes WHERE scope = 'default' AND session_id = 's1' AND seq = 1"))).toEqual([]);
  });
});

