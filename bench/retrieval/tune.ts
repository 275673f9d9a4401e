/**
 * Chooses fusion settings on the dev split: ingests once, then scores every setting of a grid on
 * the same databases and prints one line per setting (R@k overall, then R@10 or recall_all@5 per
 * category). Query vectors come from the vector cache, so latency here means nothing; `gllam bench
 * retrieval` measures it. Usage:
 *   bun bench/retrieval/tune.ts locomo|longmemeval DATA static|model GRID_JSON
 * where GRID_JSON is a list of partial tunings, e.g. '[{"staticWeight":0.2},{"staticWeight":0.5}]'.
 */
import { createCachedEmbedder } from "../../src/embed/cache.ts";
import { createLocalModelEmbedder } from "../../src/embed/local-model.ts";
import { ensureStaticTable, loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { defaultVectorCachePath, runRetrievalBench } from "../../src/bench/retrieval.ts";

const [dataset, data, tiers, grid] = Bun.argv.slice(2);
if ((dataset !== "locomo" && dataset !== "longmemeval") || !data || (tiers !== "static" && tiers !== "model") || !grid) {
  console.error("usage: bun bench/retrieval/tune.ts locomo|longmemeval DATA static|model GRID_JSON");
  process.exit(2);
}
const embedder = tiers === "model" ? createLocalModelEmbedder() : undefined;
const queryEmbedder = embedder && createCachedEmbedder(embedder, defaultVectorCachePath());
const settings = JSON.parse(grid) as object[];
const result = await runRetrievalBench({
  dataset,
  data,
  embedder,
  queryEmbedder,
  staticEmbedder: loadStaticEmbedder(await ensureStaticTable()),
  variants: Object.fromEntries(settings.map((tuning) => [JSON.stringify(tuning), tuning])),
});
const key = dataset === "locomo" ? "recall@10" : "recall_all@5";
const bm25 = result.variants.bm25!;
for (const [name, scores] of Object.entries(result.variants)) {
  const groups = Object.entries(scores.by_category).map(([group, m]) => `${group} ${m[key]!.toFixed(3)}`);
  // Where this setting falls below BM25 alone (overall or in a category, at any k).
  const below = [["overall", scores.overall, bm25.overall] as const, ...Object.entries(scores.by_category).map(([g, m]) => [g, m, bm25.by_category[g]!] as const)].flatMap(([g, m, base]) =>
    Object.keys(m).filter((metric) => metric !== "questions" && m[metric]! < base[metric]! - 1e-9).map((metric) => `${g}:${metric}`),
  );
  console.log(name.padEnd(40), Object.values(scores.overall).map((x) => x.toFixed(3)).join(" "), "|", groups.join(" | "), "| below bm25:", below.join(",") || "none");
}
queryEmbedder?.close();
