// Recall by two checkouts' engines in one process, on one file opened read-only by each, the
// questions alternated between them (A then B, then B then A): a change is measured against the
// same page cache and the same minute, which runs of `gllam bench scale` a few minutes apart are
// not (this machine's speed moves more than most changes). Also says for how many recalls both
// returned the same episodes with the same scores (an exact change: all of them), and each round's
// figures: the first is each question asked for the first time (bench scale's recall_p50_ms, after
// the same five untimed questions), the later ones asked again. With --lexical,
// BM25 alone is compared instead (searchEpisodes with every other list and boost off, k 100).
//   git worktree add /tmp/base main && ln -s "$PWD/node_modules" /tmp/base/node_modules
//   bun bench/scale/ab-recall.ts FILE /tmp/base [WORK=.] [ROUNDS=3] [DATA] [QUESTIONS=100] [--lexical]
import { resolve } from "node:path";

const lexical = process.argv.includes("--lexical");
const [file, base, work = ".", rounds = "3", data = "../shared/data/locomo/locomo_dev5.json", count = "100"] = process.argv.slice(2).filter((arg) => arg !== "--lexical");
if (!file || !base) throw new Error("usage: bun bench/scale/ab-recall.ts FILE BASE_CHECKOUT [WORK_CHECKOUT] [ROUNDS] [DATA] [QUESTIONS] [--lexical]");
const LEXICAL = { denseWeight: 0, staticWeight: 0, staticAloneWeight: 0, neighbourWeight: 0 };

type Hits = { episodeId: number; score: number }[];
type Side = { name: string; recall(text: string): Promise<Hits>; close(): void; times: number[][] };

async function openSide(checkout: string): Promise<Side & { questions: string[] }> {
  const dir = resolve(checkout);
  const { parseJsonText } = await import(`${dir}/src/episodic/formats/json-text.ts`);
  const { readQuestions } = await import(`${dir}/src/bench/scale.ts`);
  const { Gllam } = await import(`${dir}/src/gllam/gllam.ts`);
  const { ensureStaticTableNoisily, loadStaticEmbedder } = await import(`${dir}/src/gllam/open.ts`);
  const staticEmbedder = loadStaticEmbedder(await ensureStaticTableNoisily());
  const questions: { text: string }[] = readQuestions(parseJsonText(await Bun.file(data).text(), data), Number(count));
  const gllam = await Gllam.open(file!, { readOnly: true, embedder: staticEmbedder, staticEmbedder });
  const recall = async (text: string): Promise<Hits> =>
    lexical ? (await gllam.searchEpisodes(text, { tuning: LEXICAL, k: 100 })).hits : (await gllam.recall(text)).episodes;
  return { name: dir, questions: questions.map((q) => q.text), recall, close: () => gllam.close(), times: [] };
}

const a = await openSide(base);
const b = await openSide(work);
try {
  for (const text of a.questions.slice(0, 5)) for (const side of [a, b]) await side.recall(text);
  let same = 0;
  for (let round = 0; round < Number(rounds); round++) {
    for (const side of [a, b]) side.times.push([]);
    for (const [i, text] of a.questions.entries()) {
      const answers: string[] = [];
      for (const side of (i + round) % 2 === 0 ? [a, b] : [b, a]) {
        const started = performance.now();
        const hits = await side.recall(text);
        side.times[round]!.push(performance.now() - started);
        answers.push(JSON.stringify(hits.map((hit) => [hit.episodeId, hit.score])));
      }
      if (answers[0] === answers[1]) same++;
    }
  }
  const at = (times: number[], p: number) => [...times].sort((x, y) => x - y)[Math.floor((times.length - 1) * p)]!;
  const mean = (times: number[]) => times.reduce((sum, t) => sum + t, 0) / times.length;
  const line = (times: number[]) => `p50 ${at(times, 0.5).toFixed(2)} ms, p95 ${at(times, 0.95).toFixed(2)}, mean ${mean(times).toFixed(2)}`;
  for (const side of [a, b]) {
    console.log(`${side.name}: ${lexical ? "BM25" : "recall"} ${line(side.times.flat())}`);
    side.times.forEach((times, round) => console.log(`  round ${round + 1}${round === 0 ? " (first asked)" : ""}: ${line(times)}`));
  }
  console.log(`same episodes and scores: ${same} of ${a.times.flat().length} recalls`);
} finally {
  a.close();
  b.close();
}
