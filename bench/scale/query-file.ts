// The query half of `gllam bench scale` on a file it kept (`--db FILE`), opened read-only: recall
// p50/p95, BM25 alone, static KNN (cells) against exact KNN, for the same dev questions. So query
// changes are measured on one 1M-episode file without growing it again (~10 minutes each time).
//   bun bench/scale/query-file.ts FILE [DATA] [QUESTIONS] [WARM]
import { parseJsonText } from "../../src/episodic/formats/json-text.ts";
import { measureSize, readQuestionSets } from "../../src/bench/scale.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { ensureStaticTableNoisily, loadStaticEmbedder } from "../../src/gllam/open.ts";

const [file, data = "../shared/data/locomo/locomo_dev5.json", count = "100", warm = "300"] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/scale/query-file.ts FILE [DATA] [QUESTIONS] [WARM]");
const staticEmbedder = loadStaticEmbedder(await ensureStaticTableNoisily());
const sets = readQuestionSets(parseJsonText(await Bun.file(data).text(), data), Number(count), Number(warm));
const gllam = await Gllam.open(file, { readOnly: true, embedder: staticEmbedder, staticEmbedder });
try {
  const episodes = gllam.dbRO().query<{ n: number }, []>("SELECT count(*) AS n FROM episodes").get()!.n;
  const row = await measureSize(gllam, sets, new Map(), { staticEmbedder });
  const load = (await Bun.file("/proc/loadavg").text().catch(() => "unknown")).split(" ").slice(0, 3).join(" ");
  console.log(JSON.stringify({ episodes, ...row, questions: sets.asked.length, questions_warm: sets.warm.length, questions_new: sets.fresh.length, load_average: load }));
} finally {
  gllam.close();
}
