/**
 * Chooses fusion settings on the dev split: runs the retrieval benchmark for each setting in a grid
 * and prints one line per setting. Query vectors are cached too, so latency here means nothing;
 * `gllam bench retrieval` measures it. Usage: bun bench/retrieval/tune.ts locomo|longmemeval DATA GRID_JSON
 * where GRID_JSON is a list of partial tunings, e.g. '[{"denseWeight":0},{"denseWeight":0.5}]'.
 */
import { createCachedEmbedder } from "../../src/embed/cache.ts";
import { createLocalModelEmbedder } from "../../src/embed/local-model.ts";
import { defaultVectorCachePath, runRetrievalBench } from "../../src/bench/retrieval.ts";

const [dataset, data, grid] = Bun.argv.slice(2);
if ((dataset !== "locomo" && dataset !== "longmemeval") || !data || !grid) {
  console.error("usage: bun bench/retrieval/tune.ts locomo|longmemeval DATA GRID_JSON");
  process.exit(2);
}
const embedder = createLocalModelEmbedder();
const queryEmbedder = createCachedEmbedder(embedder, defaultVectorCachePath());
for (const tuning of JSON.parse(grid) as object[]) {
  const result = await runRetrievalBench({ dataset, data, embedder, queryEmbedder, tuning });
  const groups = Object.entries(result.by_category).map(([name, m]) => `${name} ${Object.values(m).slice(1).map((x) => x.toFixed(3)).join("/")}`);
  console.log(JSON.stringify(tuning), Object.values(result.overall).map((x) => x.toFixed(3)).join(" "), "|", groups.join(" | "));
}
queryEmbedder.close();
