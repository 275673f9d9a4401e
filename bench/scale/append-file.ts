// The ingest half of `gllam bench scale` on a copy of a file it kept (`--db FILE`): appends the
// bench corpus's turns FROM..FROM+COUNT to the copy in 5,000-turn transactions as the bench does
// (writeBatches, the next chunk's static vectors embedded ahead in a worker), then checkpoints, and prints the rate (wall and per CPU-second), the bytes read and
// written (/proc/self/io) and the load average. So ingest changes are measured at 1M, alternating
// two checkouts on the same turns, without growing 1M episodes each time. The copy is deleted.
//   bun bench/scale/append-file.ts FILE [FROM] [COUNT] [DATA]
import { closeSync, copyFileSync, fsyncSync, openSync, existsSync, readFileSync, rmSync } from "node:fs";
import { parseJsonText } from "../../src/episodic/formats/json-text.ts";
import { parseLocomo } from "../../src/episodic/formats/locomo.ts";
import { collectUnits } from "../../src/episodic/formats/source.ts";
import { startEmbedAhead } from "../../src/episodic/embed-ahead.ts";
import { parseUnits, writeBatches } from "../../src/episodic/ingest.ts";
import { buildScaleCorpus, corpusSlice } from "../../src/bench/scale-corpus.ts";
import { Gllam } from "../../src/gllam/gllam.ts";
import { ensureStaticTableNoisily, loadStaticEmbedder } from "../../src/gllam/open.ts";

const [file, fromArg = "1000000", countArg = "40000", data = "../shared/data/locomo/locomo_dev5.json"] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/scale/append-file.ts FILE [FROM] [COUNT] [DATA]");
const from = Number(fromArg);
const count = Number(countArg);
const CHUNK = 5000;

const staticEmbedder = loadStaticEmbedder(await ensureStaticTableNoisily());
const corpus = buildScaleCorpus(collectUnits(parseLocomo(parseJsonText(await Bun.file(data).text(), data), { file: data })));
// Built before the clock starts: the bench times its writes and checkpoints, not its corpus.
const chunks: ReturnType<typeof corpusSlice>[] = [];
for (let at = from; at < from + count; at += CHUNK) chunks.push(corpusSlice(corpus, at, Math.min(from + count, at + CHUNK)));
const copy = `${file}.append-${process.pid}`;
copyFileSync(file, copy);
if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
// The copy's pages go to the disk now: else the first checkpoint's fsync writes the whole file.
for (const path of [copy, `${copy}-wal`].filter(existsSync)) {
  const fd = openSync(path, "r+");
  fsyncSync(fd);
  closeSync(fd);
}
const io = () => Object.fromEntries(readFileSync("/proc/self/io", "utf8").trim().split("\n").map((line) => line.split(": ")).map(([k, v]) => [k!, Number(v)]));
// The writer's thread alone (the main thread: utime + stime in clock ticks of 10 ms): the CPU on
// the ingest's critical path, what a quiet machine's wall time follows when the worker keeps up.
const writerCpuSeconds = () => readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ").slice(11, 13).reduce((sum, ticks) => sum + Number(ticks) / 100, 0);
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const gllam = await Gllam.open(copy, { embedder: staticEmbedder, staticEmbedder });
const ahead = startEmbedAhead(staticEmbedder);
try {
  // The worker warmed up before the clock starts (its table loaded, its code compiled), as in the
  // bench, where it starts once for all sizes: else a 40K-turn run pays its start in its first wait.
  await ahead?.embed(gllam.store.db(), parseUnits(chunks[0]!));
  const loadBefore = load();
  const ioBefore = io();
  const cpuStart = process.cpuUsage();
  const writerStart = writerCpuSeconds();
  let write = 0;
  let waited = 0;
  const waits: number[] = [];
  const parse = (at: number) => {
    const batches = parseUnits(chunks[at]!);
    return { batches, staticAhead: ahead?.embed(gllam.store.db(), batches) };
  };
  const first = performance.now();
  let next = parse(0);
  write += performance.now() - first;
  for (let at = 0; at < chunks.length; at++) {
    const t = performance.now();
    const { batches } = next;
    const staticAhead = await next.staticAhead;
    waits.push(Math.round(performance.now() - t));
    waited += performance.now() - t;
    if (at + 1 < chunks.length) next = parse(at + 1);
    writeBatches(gllam.store, batches, { staticEmbedder, staticAhead });
    write += performance.now() - t;
  }
  const t = performance.now();
  gllam.checkpointWAL("TRUNCATE");
  const checkpoint = performance.now() - t;
  // The first chunk's wait fills the pipeline (nothing was written while the worker embedded it):
  // once per ingest, 1 chunk of 180 from 100K to 1M in the bench, 1 of 8 here; left out of the rate.
  const fill = (waits[0] ?? 0) / 1000;
  const wall = (write + checkpoint) / 1000 - fill;
  const used = process.cpuUsage(cpuStart);
  const writerCpu = writerCpuSeconds() - writerStart;
  const ioAfter = io();
  console.log(
    JSON.stringify({
      turns: count,
      turns_per_s: Math.round(count / wall),
      turns_per_cpu_s: Math.round(count / ((used.user + used.system) / 1e6)),
      turns_per_writer_cpu_s: Math.round(count / writerCpu),
      user_s: used.user / 1e6,
      system_s: used.system / 1e6,
      checkpoint_s: checkpoint / 1000,
      pipeline_fill_s: fill,
      waited_for_worker_s: waited / 1000 - fill,
      waits_ms: waits,
      read_kb_per_turn: Math.round((ioAfter.read_bytes! - ioBefore.read_bytes!) / count / 100) / 10,
      written_kb_per_turn: Math.round((ioAfter.write_bytes! - ioBefore.write_bytes!) / count / 100) / 10,
      load_before: loadBefore,
      load_after: load(),
    }),
  );
} finally {
  await ahead?.close();
  gllam.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${copy}${suffix}`, { force: true });
}
