// An agent's loop on a copy of a bench file: write one turn, then recall a dev question; the 100
// questions twice, the second pass timed (p50 / mean), and each recall asked again with no write
// between, for comparison. The copy is written to and deleted. CHECKOUT names the engine (default
// this one), so two checkouts can be alternated on one file as ab-recall.ts does in one process.
//   bun bench/scale/write-read.ts FILE [CHECKOUT=.] [DATA] [QUESTIONS=100]
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";

const [file, checkout = ".", data = "../shared/data/locomo/locomo_dev5.json", count = "100"] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/scale/write-read.ts FILE [CHECKOUT] [DATA] [QUESTIONS]");
const dir = resolve(checkout);
const { parseJsonText } = await import(`${dir}/src/episodic/formats/json-text.ts`);
const { readQuestions } = await import(`${dir}/src/bench/scale.ts`);
const { Gllam } = await import(`${dir}/src/gllam/gllam.ts`);
const { ensureStaticTableNoisily, loadStaticEmbedder } = await import(`${dir}/src/gllam/open.ts`);
const questions: { text: string }[] = readQuestions(parseJsonText(await Bun.file(data).text(), data), Number(count));
const staticEmbedder = loadStaticEmbedder(await ensureStaticTableNoisily());
const copy = `${file}.write-read-${process.pid}`;
copyFileSync(file, copy);
if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
const gllam = await Gllam.open(copy, { embedder: staticEmbedder, staticEmbedder });
const afterWrite: number[] = [];
const again: number[] = [];
try {
  for (let pass = 0; pass < 2; pass++) {
    for (const [i, question] of questions.entries()) {
      gllam.addEpisodes([{ sessionId: `write-read-${pass}`, seq: i, speaker: "Ann", content: `note ${i}: ${question.text}` }]);
      let started = performance.now();
      await gllam.recall(question.text);
      if (pass > 0) afterWrite.push(performance.now() - started);
      started = performance.now();
      await gllam.recall(question.text);
      if (pass > 0) again.push(performance.now() - started);
    }
  }
} finally {
  gllam.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${copy}${suffix}`, { force: true });
}
const round = (ms: number) => Math.round(ms * 100) / 100;
const stats = (times: number[]) => ({ p50_ms: round([...times].sort((a, b) => a - b)[times.length >> 1]!), mean_ms: round(times.reduce((sum, t) => sum + t, 0) / times.length) });
const load = (await Bun.file("/proc/loadavg").text().catch(() => "unknown")).split(" ").slice(0, 3).join(" ");
console.log(JSON.stringify({ checkout: dir, recall_after_write: stats(afterWrite), recall_again: stats(again), questions: questions.length, load_average: load }));
