import { defaultAgenticMemoryConfig, type AgenticMemoryConfig } from "../../src/config/prompts.ts";
import type { Embedder } from "../../src/embed/embedder.ts";
import type { Gllam } from "../../src/engine/gllam.ts";
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
