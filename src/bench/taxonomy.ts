/**
 * `gllam bench taxonomy`: consolidating a large taxonomy branch (default 100K nodes) while another
 * process reads the same file. The reader is this executable again (`--reader`), in its own
 * process with its own read-only connection, timing prefix listings, counts and point reads until
 * the consolidation ends; SQLITE_BUSY errors it meets are counted.
 */
import { defineCommand } from "citty";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import { Gllam } from "../gllam/gllam.ts";
import { Store } from "../engine/store.ts";
import { readNode } from "../semantic/nodes.ts";
import { countNodesByTaxonomyPrefix, getNodesByTaxonomyPrefix } from "../semantic/taxonomy.ts";
import { noEmbedder } from "./graph.ts";
import { percentile, round } from "./metrics.ts";
import { benchOutputArgs, intArg, reportBenchResult, selfCommand } from "./args.ts";
import { seededRandom } from "./random.ts";

const FROM = "/Bench/Legacy/DBs";
const TO = "/Bench/Infrastructure/Databases";
const KINDS = 100;

export type TaxonomyBenchResult = {
  nodes: number;
  consolidate_s: number;
  reader_queries: number;
  reader_p99_ms: number;
  busy_errors: number;
  reader_p50_ms: number;
  reader_max_ms: number;
  batches: number;
  moved: number;
  batch_size: number;
  pause_ms: number;
  setup_s: number;
  /** Every node of the branch ended under the target and nothing else moved. */
  verified: boolean;
};

type ReaderResult = { queries: number; busy: number; p50: number; p99: number; max: number };

/** Builds the file: the branch (N nodes in KINDS sub-categories), N/10 already at the target, N/10 elsewhere. */
async function buildTaxonomy(path: string, nodes: number, log: (line: string) => void): Promise<void> {
  const gllam = await Gllam.open(path, { embedder: noEmbedder });
  try {
    const groups: [string, number, string][] = [
      [FROM, nodes, "b"],
      [TO, Math.ceil(nodes / 10), "t"],
      ["/Bench/Other", Math.ceil(nodes / 10), "o"],
    ];
    for (const [root, count, prefix] of groups) {
      gllam.store.transaction(() => {
        gllam.upsertNode({ id: `cat${prefix}`, name: root.split("/").at(-1)!, type: "category", isCategory: true, taxonomyPath: root });
        for (let k = 0; k < KINDS; k++) gllam.upsertNode({ id: `cat${prefix}${k}`, name: `Kind ${k}`, type: "category", isCategory: true, taxonomyPath: `${root}/Kind${k}` });
      });
      for (let from = 0; from < count; from += 10_000) {
        gllam.store.transaction(() => {
          for (let i = from; i < Math.min(count, from + 10_000); i++) gllam.upsertNode({ id: `${prefix}${i}`, name: `Entity ${prefix}${i}`, taxonomyPath: `${root}/Kind${i % KINDS}` });
        });
      }
      log(`built ${count} nodes under ${root}`);
    }
    gllam.checkpointWAL("TRUNCATE");
  } finally {
    gllam.close();
  }
}

/** The reader process: queries until SIGTERM, then prints its figures as one JSON line. */
export async function runTaxonomyReader(path: string, seed: number, nodes: number): Promise<void> {
  const store = await Store.open(path, { readOnly: true });
  const rng = seededRandom(seed);
  let stop = false;
  process.on("SIGTERM", () => (stop = true));
  const times: number[] = [];
  let busy = 0;
  const queries = [
    () => getNodesByTaxonomyPrefix(store, `${rng.next() < 0.5 ? FROM : TO}/Kind${rng.int(KINDS)}`, { limit: 50 }),
    () => countNodesByTaxonomyPrefix(store.dbRO(), `${rng.next() < 0.5 ? FROM : TO}/Kind${rng.int(KINDS)}`),
    () => readNode(store, `b${rng.int(nodes)}`, "default"),
  ];
  process.stdout.write("ready\n");
  while (!stop) {
    for (let i = 0; i < 20; i++) {
      const query = queries[rng.int(queries.length)]!;
      const started = performance.now();
      try {
        query();
      } catch (error) {
        if (!/SQLITE_BUSY|database is locked/i.test(`${(error as { code?: string }).code ?? ""} ${String(error)}`)) throw error;
        busy++;
      }
      times.push(performance.now() - started);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  store.close();
  const result: ReaderResult = { queries: times.length, busy, p50: percentile(times, 50), p99: percentile(times, 99), max: Math.max(...times) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

async function readLine(reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> }, buffer: { text: string }): Promise<string> {
  while (!buffer.text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new GllamError("E_BAD_INPUT", `the reader process ended early${buffer.text ? `: ${buffer.text}` : ""}`);
    buffer.text += new TextDecoder().decode(value);
  }
  const at = buffer.text.indexOf("\n");
  const line = buffer.text.slice(0, at);
  buffer.text = buffer.text.slice(at + 1);
  return line;
}

export type TaxonomyBenchOptions = { nodes: number; seed: number; batchSize: number; pauseMs: number; db?: string };

export async function runTaxonomyBench(options: TaxonomyBenchOptions, log: (line: string) => void = () => {}): Promise<TaxonomyBenchResult> {
  const folder = options.db ? undefined : mkdtempSync(join(tmpdir(), "gllam-bench-taxonomy-"));
  const path = options.db ?? join(folder!, "taxonomy.db");
  if (options.db && existsSync(options.db)) throw new GllamError("E_BAD_INPUT", `--db ${options.db} exists: the benchmark writes a fresh file`);
  try {
    let started = performance.now();
    await buildTaxonomy(path, options.nodes, log);
    const setupS = (performance.now() - started) / 1000;
    log(`setup: ${setupS.toFixed(1)} s, ${(statSync(path).size / 2 ** 20).toFixed(1)} MiB`);

    const reader = Bun.spawn([...selfCommand(), "bench", "taxonomy", "--reader", path, "--seed", String(options.seed), "--nodes", String(options.nodes)], {
      stdout: "pipe",
      stderr: "inherit",
    });
    const lines = reader.stdout.getReader();
    const buffer = { text: "" };
    try {
      if ((await readLine(lines, buffer)) !== "ready") throw new GllamError("E_BAD_INPUT", "the reader process did not start");
      const gllam = await Gllam.open(path, { embedder: noEmbedder });
      let report;
      try {
        started = performance.now();
        report = await gllam.consolidateTaxonomyBranch(FROM, TO, {
          batchSize: options.batchSize,
          pauseMs: options.pauseMs,
          onBatch: (p) => p.batches % 20 === 0 && log(`moved ${p.moved}/${p.total}`),
        });
      } finally {
        gllam.close();
      }
      const consolidateS = (performance.now() - started) / 1000;
      reader.kill("SIGTERM");
      const figures = JSON.parse(await readLine(lines, buffer)) as ReaderResult;
      if ((await reader.exited) !== 0) throw new GllamError("E_BAD_INPUT", `the reader process failed (exit ${reader.exitCode})`);
      const check = await Store.open(path, { readOnly: true });
      const branch = options.nodes + KINDS + 1;
      const verified =
        countNodesByTaxonomyPrefix(check.dbRO(), FROM) === 0 &&
        countNodesByTaxonomyPrefix(check.dbRO(), TO) === branch + Math.ceil(options.nodes / 10) + KINDS + 1 &&
        countNodesByTaxonomyPrefix(check.dbRO(), "/Bench/Other") === Math.ceil(options.nodes / 10) + KINDS + 1;
      check.close();
      return {
        nodes: options.nodes,
        consolidate_s: round(consolidateS, 3),
        reader_queries: figures.queries,
        reader_p99_ms: round(figures.p99, 3),
        busy_errors: figures.busy,
        reader_p50_ms: round(figures.p50, 3),
        reader_max_ms: round(figures.max, 3),
        batches: report.batches,
        moved: report.moved,
        batch_size: options.batchSize,
        pause_ms: options.pauseMs,
        setup_s: round(setupS, 1),
        verified,
      };
    } finally {
      if (reader.exitCode === null) reader.kill("SIGKILL");
    }
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
}

export const taxonomyBenchCommand = defineCommand({
  meta: { name: "taxonomy", description: "Taxonomy consolidation of a large branch (default 100K nodes) while another process reads: duration, reader p99, busy errors" },
  args: {
    nodes: { type: "string", description: "Nodes in the branch that moves (default 100000)", valueHint: "n" },
    seed: { type: "string", description: "Random seed of the reader's queries (default 1)", valueHint: "n" },
    batch: { type: "string", description: "Rows per transaction (default 500)", valueHint: "n" },
    pause: { type: "string", description: "Pause between transactions in ms (default 10)", valueHint: "ms" },
    ...benchOutputArgs,
    reader: { type: "string", description: "(internal) run as the reader process on this file", valueHint: "path" },
  },
  run: async ({ args }) => {
    const nodes = intArg(args.nodes, 100_000, "--nodes", 100);
    const seed = intArg(args.seed, 1, "--seed", 0);
    if (args.reader) return runTaxonomyReader(args.reader, seed, nodes);
    const options = { nodes, seed, batchSize: intArg(args.batch, 500, "--batch"), pauseMs: intArg(args.pause, 10, "--pause", 0), db: args.db };
    const result = await runTaxonomyBench(options, (line) => console.error(line));
    await reportBenchResult(result, args.json);
  },
});
