import { defaultAgenticMemoryConfig, type AgenticMemoryConfig } from "../../src/config/prompts.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

export const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** A tiny deterministic embedder: these tests are about the graph, not the model. */
export const tinyEmbedder: Embedder = {
  modelVersion: "test-tiny-4",
  dims: 4,
  embed: async (texts) => texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) || 1, 1, 0.5])),
};

/**
 * Call once per test file (its temp folder goes when the file ends): returns `graph(names)`, a
 * fresh memory with the named nodes (id = name lower-cased, or "id:Name").
 */
export function useGraphs() {
  const dir = makeTempDir("gllam-semantic-");
  return async (names: string[], config: Partial<AgenticMemoryConfig> = {}): Promise<Gllam> => {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder, config: { ...defaultAgenticMemoryConfig(), ...config } });
    for (const entry of names) {
      const [id, name] = entry.includes(":") ? entry.split(":") : [entry.toLowerCase(), entry];
      gllam.upsertNode({ id: id!, name: name! });
    }
    return gllam;
  };
}

export function count(gllam: Gllam, table: string, where = "1"): number {
  return (gllam.dbRO().query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
}

/** Every row count of the semantic layer, to show that a refused call wrote nothing. */
export function snapshot(gllam: Gllam): Record<string, number> {
  return Object.fromEntries(
    ["semantic_nodes", "semantic_links", "semantic_link_events", "semantic_node_names", "sources"].map((t) => [t, count(gllam, t)]),
  );
}

export function addSource(gllam: Gllam, id: string, trustWeight: number): void {
  gllam.db().run("INSERT INTO sources (id, doc_type, handle, trust_weight, created_at, updated_at) VALUES (?, 'test', ?, ?, 0, 0)", [id, id, trustWeight]);
}

/**
 * Every name the seed gives in "Multi-Factor Composite Trust Weight Calculation" (and "Merged Pull
 * Request" from its conflict example), with the weight the seed gives it.
 */
export const SEED_DOC_TYPES = [
  ["Jira Resolved", 800],
  ["Merged PR", 800],
  ["Merged Pull Request", 800],
  ["Jira Resolved / Merged PR", 800],
  ["Approved Architecture Doc", 700],
  ["Jira Open", 600],
  ["Slack", 600],
  ["Incident Log", 600],
  ["Jira Open / Slack / Incident Log", 600],
  ["Email Thread", 400],
  ["Support Ticket", 400],
  ["Email Thread / Support Ticket", 400],
  ["Draft", 200],
  ["Scratchpad", 200],
  ["Draft / Scratchpad", 200],
] as const;
export const SEED_ROLES = [
  ["System CI/CD", 150],
  ["Tech Lead", 100],
  ["Verified Eng", 50],
] as const;
/** The seed's prose says "Alice, Carol, Dave"; its table's handles are alice, carol_lead, dave_drafts. */
export const SEED_HANDLES = [
  ["Alice", 150],
  ["carol_lead", 200],
  ["@Dave_Drafts", -150],
] as const;
