/**
 * `gllam bench graph`: a synthetic semantic graph (default 100K nodes, 1M links, 5% of them claims
 * that conflict with a believed one) written through addEdge in batched transactions, then
 * findMultiHopPath between nodes 2-4 hops apart and activeLinks at random past times.
 */
import { defineCommand } from "citty";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultAgenticMemoryConfig } from "../config/prompts.ts";
import { GllamError } from "../engine/errors.ts";
import type { Embedder } from "../embed/embedder.ts";
import { Gllam } from "../gllam/gllam.ts";
import type { LinkInput } from "../memory/types.ts";
import type { AddEdgeAction } from "../semantic/add-edge.ts";
import { benchOutputArgs, intArg, reportBenchResult } from "./args.ts";
import { seededRandom } from "./random.ts";

export type GraphBenchOptions = { nodes: number; links: number; seed: number; pathQueries: number; asofQueries: number; batch: number; db?: string };

export type GraphBenchResult = {
  nodes: number;
  links: number;
  add_edge_per_s: number;
  /** The same per second of this process's CPU time: what the rate would be on an idle core. */
  add_edge_cpu_per_s: number;
  path_p50_ms: number;
  path_p95_ms: number;
  asof_p50_ms: number;
  asof_p95_ms: number;
  db_bytes: number;
  /** What addEdge did, by action (conflicts settled, successions, contradictions, duplicates). */
  actions: Record<string, number>;
  /** Shortest path lengths of the path queries (random walks of 2-4 hops). */
  path_hops: Record<string, number>;
  node_insert_s: number;
  add_edge_s: number;
};

const DAY = 86_400_000;
const EXCLUSIVE = ["has_state", "located_in", "version_is", "owned_by", "status_is"];
const PLAIN = ["depends_on", "uses", "runs_on", "part_of", "calls", "reads_from", "writes_to", "mentions", "owned_team", "deployed_to"];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The graph never needs vectors: a stand-in that refuses to be used. */
export const noEmbedder: Embedder = {
  modelVersion: "none",
  dims: 0,
  embed: () => Promise.reject(new GllamError("E_EMBEDDER", "the graph benchmark embeds nothing")),
};

export async function runGraphBench(options: GraphBenchOptions, log: (line: string) => void = () => {}): Promise<GraphBenchResult> {
  const folder = options.db ? undefined : mkdtempSync(join(tmpdir(), "gllam-bench-graph-"));
  const path = options.db ?? join(folder!, "graph.db");
  if (options.db && existsSync(options.db)) throw new GllamError("E_BAD_INPUT", `--db ${options.db} exists: the benchmark writes a fresh file`);
  const gllam = await Gllam.open(path, { embedder: noEmbedder, config: defaultAgenticMemoryConfig() });
  try {
    const rng = seededRandom(options.seed);
    const now0 = Date.UTC(2026, 0, 1);
    const nodeId = (i: number) => `n${i}`;

    let started = performance.now();
    for (let from = 0; from < options.nodes; from += options.batch) {
      gllam.store.transaction(() => {
        for (let i = from; i < Math.min(options.nodes, from + options.batch); i++) gllam.upsertNode({ id: nodeId(i), name: `Entity ${i}`, type: "entity" });
      });
    }
    const nodeInsertS = (performance.now() - started) / 1000;
    log(`nodes: ${options.nodes} in ${nodeInsertS.toFixed(1)} s`);

    const exclusiveKeys: [number, string][] = [];
    const pickOther = (s: number) => (s + 1 + rng.int(options.nodes - 1)) % options.nodes;
    const makeLink = (i: number): LinkInput => {
      const roll = rng.next();
      if (roll < 0.05 && exclusiveKeys.length > 0) {
        // A claim that conflicts with a believed one: settled by trust, by succession, or a contradiction.
        const [s, relationship] = exclusiveKeys[rng.int(exclusiveKeys.length)]!;
        const later = rng.next() < 0.3;
        return { sourceId: nodeId(s), targetId: nodeId(pickOther(s)), relationship, trustWeight: 200 + 200 * rng.int(4), ...(later && { validFrom: now0 + i * 10 }) };
      }
      const s = rng.int(options.nodes);
      if (roll < 0.15) {
        const relationship = EXCLUSIVE[rng.int(EXCLUSIVE.length)]!;
        exclusiveKeys.push([s, relationship]);
        return { sourceId: nodeId(s), targetId: nodeId(pickOther(s)), relationship, trustWeight: 200 + 200 * rng.int(4), validFrom: now0 - rng.int(3 * 365) * DAY };
      }
      const validFrom = now0 - rng.int(3 * 365) * DAY;
      return {
        sourceId: nodeId(s),
        targetId: nodeId(pickOther(s)),
        relationship: PLAIN[rng.int(PLAIN.length)]!,
        validFrom,
        ...(rng.next() < 0.1 && { validUntil: validFrom + rng.int(365) * DAY }),
        ...(rng.next() < 0.2 && { caveats: `only in region ${rng.int(10)}` }),
      };
    };

    const actions: Record<AddEdgeAction, number> = { inserted: 0, superseded: 0, succeeded: 0, contradiction: 0, duplicate: 0, rejected: 0 };
    let addEdgeMs = 0;
    let addEdgeCpuUs = 0;
    for (let from = 0; from < options.links; from += options.batch) {
      const count = Math.min(options.links, from + options.batch) - from;
      const inputs = Array.from({ length: count }, (_, k) => makeLink(from + k));
      started = performance.now();
      const cpu = process.cpuUsage();
      gllam.store.transaction(() => {
        inputs.forEach((input, k) => actions[gllam.addEdge(input, { now: now0 + (from + k) * 10 }).action]++);
      });
      addEdgeMs += performance.now() - started;
      const used = process.cpuUsage(cpu);
      addEdgeCpuUs += used.user + used.system;
      log(`links: ${from + count} (${Math.round((from + count) / (addEdgeMs / 1000))}/s)`);
    }
    const addEdgePerS = options.links / (addEdgeMs / 1000);
    log(`addEdge: ${Math.round(addEdgePerS)}/s ${JSON.stringify(actions)}`);

    const queryTime = now0 + options.links * 10 + 1;
    // Pairs 2-4 hops apart along active links (a random walk; the shortest path may be shorter).
    const pairs: [string, string][] = [];
    for (let tries = 0; pairs.length < options.pathQueries && tries < options.pathQueries * 20; tries++) {
      const start = nodeId(rng.int(options.nodes));
      let at = start;
      const walk = 2 + rng.int(3);
      for (let step = 0; step < walk; step++) {
        const links = gllam.activeLinks(at, { asOf: queryTime });
        const link = links[rng.int(links.length)];
        if (!link) break;
        at = link.direction === "out" ? link.targetId : link.sourceId;
      }
      if (at !== start) pairs.push([start, at]);
    }
    const pathHops: Record<string, number> = {};
    const pathMs = pairs.map(([a, b]) => {
      const t = performance.now();
      const path = gllam.findMultiHopPath(a, b, { maxHops: 4, asOf: queryTime });
      const ms = performance.now() - t;
      const key = path.found ? String(path.hops) : "none";
      pathHops[key] = (pathHops[key] ?? 0) + 1;
      return ms;
    });
    const asofMs = Array.from({ length: options.asofQueries }, () => {
      const node = nodeId(rng.int(options.nodes));
      const asOf = now0 - rng.int(3 * 365) * DAY;
      const t = performance.now();
      gllam.activeLinks(node, { asOf });
      return performance.now() - t;
    });
    gllam.checkpointWAL("TRUNCATE");
    const dbBytes = statSync(path).size + (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    pathMs.sort((x, y) => x - y);
    asofMs.sort((x, y) => x - y);
    return {
      nodes: options.nodes,
      links: options.links,
      add_edge_per_s: Math.round(addEdgePerS),
      add_edge_cpu_per_s: Math.round(options.links / (addEdgeCpuUs / 1e6)),
      path_p50_ms: round(percentile(pathMs, 50)),
      path_p95_ms: round(percentile(pathMs, 95)),
      asof_p50_ms: round(percentile(asofMs, 50)),
      asof_p95_ms: round(percentile(asofMs, 95)),
      db_bytes: dbBytes,
      actions,
      path_hops: pathHops,
      node_insert_s: round(nodeInsertS, 1),
      add_edge_s: round(addEdgeMs / 1000, 1),
    };
  } finally {
    gllam.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

export const graphBenchCommand = defineCommand({
  meta: { name: "graph", description: "Semantic graph: addEdge throughput with conflict checks, multi-hop path and asOf latency, file size" },
  args: {
    nodes: { type: "string", description: "Nodes (default 100000)", valueHint: "n" },
    links: { type: "string", description: "Links (default 1000000)", valueHint: "n" },
    seed: { type: "string", description: "Random seed (default 1)", valueHint: "n" },
    batch: { type: "string", description: "addEdge calls per transaction (default 100000)", valueHint: "n" },
    ...benchOutputArgs,
  },
  run: async ({ args }) => {
    const nodes = intArg(args.nodes, 100_000, "--nodes");
    if (nodes < 10) throw new GllamError("E_BAD_INPUT", `--nodes must be at least 10, got ${nodes}`);
    const options = {
      nodes,
      links: intArg(args.links, 1_000_000, "--links"),
      seed: intArg(args.seed, 1, "--seed"),
      pathQueries: 500,
      asofQueries: 2000,
      batch: intArg(args.batch, 100_000, "--batch"),
      db: args.db,
    };
    const result = await runGraphBench(options, (line) => console.error(line));
    await reportBenchResult(result, args.json);
  },
});
