/**
 * `gllam bench serve`: recall over HTTP as agents use it. For each embedder (static: the static
 * query embedding only; model: the bundled model embeds each query) and each size, the synthetic
 * memory grows to N turns, `gllam serve` starts on it as its own process (this executable again),
 * and clients in this process send POST /v1/recall with synthetic queries: one client alone for
 * the latency a caller sees (p50/p95, HTTP included), then `clients` at once for the throughput
 * (requests per second, and the latency under that load, queueing included).
 */
import { defineCommand } from "citty";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GllamError } from "../engine/errors.ts";
import { Gllam } from "../gllam/gllam.ts";
import { benchOutputArgs, intArg, reportBenchResult, selfCommand } from "./args.ts";
import { percentile, round } from "./metrics.ts";
import { seededRandom } from "./random.ts";
import { addRandomModelVectors, addSyntheticTurns, benchWords, synthText } from "./serve-data.ts";

const EMBEDDERS = ["static", "model"] as const;
type BenchEmbedder = (typeof EMBEDDERS)[number];

export type ServeBenchRun = {
  embedder: BenchEmbedder;
  episodes: number;
  requests: number;
  errors: number;
  /** One client at a time. */
  p50_ms: number;
  p95_ms: number;
  /** `clients` at once. */
  clients: number;
  requests_per_s: number;
  loaded_p50_ms: number;
  loaded_p95_ms: number;
  /** Seconds to grow the memory to this size (turns, static vectors, model vectors). */
  build_s: number;
};

export type ServeBenchOptions = { sizes: number[]; embedders: BenchEmbedder[]; clients: number; requests: number; seed: number; db?: string };

type Server = { url: string; stop: () => Promise<number> };

/** Starts `gllam serve` on the file, waits for the line that says where it listens, then for its warm-up to end (GET /health). */
async function startServer(path: string, embedder: BenchEmbedder): Promise<Server> {
  const proc = Bun.spawn([...selfCommand(), "serve", "--db", path, "--port", "0", "--embedder", embedder, "--workers", "0"], { stdout: "ignore", stderr: "pipe" });
  const reader = proc.stderr.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new GllamError("E_BAD_INPUT", `gllam serve exited before serving: ${text}`);
    text += new TextDecoder().decode(value);
    const found = / on (http:\/\/\S+)/.exec(text);
    if (found) {
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })();
      await untilWarm(found[1]!);
      return { url: found[1]!, stop: () => (proc.kill("SIGTERM"), proc.exited) };
    }
  }
}

/** Waits while the server says it warms up (its cells kept, its warm-up recalls asked: a minute at most). */
async function untilWarm(url: string): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await Bun.sleep(100)) {
    const health = (await (await fetch(`${url}/health`)).json()) as { warmingUp?: boolean };
    if (!health.warmingUp) return;
  }
  throw new GllamError("E_BUSY", `gllam serve at ${url} still warms up after a minute`);
}

/** `clients` loops sharing `requests` recalls; each request's time as the client sees it. */
async function driveRecall(url: string, queries: string[], clients: number, requests: number): Promise<{ times: number[]; errors: number; seconds: number }> {
  const recall = async (query: string) => {
    const started = performance.now();
    const response = await fetch(`${url}/v1/recall`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
    await response.arrayBuffer();
    return { ms: performance.now() - started, ok: response.ok };
  };
  for (const query of queries.slice(0, 20)) await recall(query); // warm-up: caches, JIT, the first model call
  const times: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < requests) {
        const result = await recall(queries[next++ % queries.length]!);
        times.push(result.ms);
        if (!result.ok) errors++;
      }
    }),
  );
  return { times, errors, seconds: (performance.now() - started) / 1000 };
}

export async function runServeBench(options: ServeBenchOptions, log: (line: string) => void = () => {}): Promise<{ runs: ServeBenchRun[] }> {
  if (options.db && existsSync(options.db)) throw new GllamError("E_BAD_INPUT", `--db ${options.db} exists: the benchmark writes fresh files there`);
  const folder = options.db ?? mkdtempSync(join(tmpdir(), "gllam-bench-serve-"));
  mkdirSync(folder, { recursive: true });
  const random = seededRandom(options.seed);
  const words = benchWords();
  const queries = Array.from({ length: 500 }, () => synthText(words, random, 3, 6));
  const runs: ServeBenchRun[] = [];
  try {
    for (const embedder of options.embedders) {
      const path = join(folder, `serve-${embedder}.db`);
      let have = 0;
      for (const size of [...options.sizes].sort((a, b) => a - b)) {
        const started = performance.now();
        const gllam = await Gllam.open(path, {});
        try {
          addSyntheticTurns(gllam, have, size - have, options.seed);
          if (embedder === "model") addRandomModelVectors(gllam, options.seed + have);
        } finally {
          gllam.close();
        }
        have = size;
        const buildS = (performance.now() - started) / 1000;
        log(`${embedder}: ${size} turns (${buildS.toFixed(1)} s)`);
        const server = await startServer(path, embedder);
        try {
          const alone = await driveRecall(server.url, queries, 1, options.requests);
          const loaded = await driveRecall(server.url, queries, options.clients, options.requests);
          const run: ServeBenchRun = {
            embedder,
            episodes: size,
            requests: alone.times.length + loaded.times.length,
            errors: alone.errors + loaded.errors,
            p50_ms: round(percentile(alone.times, 50), 1),
            p95_ms: round(percentile(alone.times, 95), 1),
            clients: options.clients,
            requests_per_s: round(loaded.times.length / loaded.seconds, 1),
            loaded_p50_ms: round(percentile(loaded.times, 50), 1),
            loaded_p95_ms: round(percentile(loaded.times, 95), 1),
            build_s: round(buildS, 1),
          };
          log(
            `${embedder} @ ${size}: p50 ${run.p50_ms} ms, p95 ${run.p95_ms} ms alone; ${run.requests_per_s} req/s with ${run.clients} clients (p50 ${run.loaded_p50_ms} ms); ${run.errors} errors`,
          );
          runs.push(run);
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    if (!options.db) rmSync(folder, { recursive: true, force: true });
  }
  return { runs };
}

const parseList = (text: string | undefined, fallback: string): string[] => (text ?? fallback).split(",").map((part) => part.trim()).filter(Boolean);

export const serveBenchCommand = defineCommand({
  meta: { name: "serve", description: "Recall over HTTP: gllam serve in its own process, concurrent clients, p50/p95 and requests/s at each size" },
  args: {
    episodes: { type: "string", description: "Sizes in turns, comma-separated (default 10000,100000)", valueHint: "n,n" },
    embedder: { type: "string", description: "static, model or both, comma-separated (default static,model)", valueHint: "names" },
    clients: { type: "string", description: "Concurrent clients of the throughput run (default 8)", valueHint: "n" },
    requests: { type: "string", description: "Recalls per run, alone and then concurrent, each after 20 warm-up ones (default 400)", valueHint: "n" },
    seed: { type: "string", description: "Random seed of the turns and queries (default 1)", valueHint: "n" },
    json: benchOutputArgs.json,
    db: { type: "string", description: "Keep the benchmark's databases in this new folder (default: a temporary one, removed after)", valueHint: "dir" },
  },
  run: async ({ args }) => {
    const sizes = parseList(args.episodes, "10000,100000").map((size) => intArg(size, 0, "--episodes", 100));
    const embedders = parseList(args.embedder, EMBEDDERS.join(",")).map((name) => {
      if (!(EMBEDDERS as readonly string[]).includes(name)) throw new GllamError("E_BAD_INPUT", `--embedder must be static, model or both, got "${name}"`);
      return name as BenchEmbedder;
    });
    const options = { sizes, embedders, clients: intArg(args.clients, 8, "--clients"), requests: intArg(args.requests, 400, "--requests"), seed: intArg(args.seed, 1, "--seed", 0), db: args.db };
    await reportBenchResult(await runServeBench(options, (line) => console.error(line)), args.json);
  },
});
