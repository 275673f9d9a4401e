/**
 * `gllam bench extract`: ingests LoCoMo conversations into a fresh file and extracts them through
 * an OpenAI-compatible server (bench/extract/run.sh starts the tests' stub with zero latency), then
 * reports GLLAM's own overhead per turn (wall time minus time waiting on the server, and this
 * process's CPU time) and the tokens extraction costs per 1,000 turns (from the answers' usage).
 */
import { defineCommand } from "citty";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as v from "valibot";
import { defaultAgenticMemoryConfig, LlmConfigSchema } from "../config/prompts.ts";
import { readEnv } from "../config/env.ts";
import { GllamError } from "../engine/errors.ts";
import { Gllam } from "../gllam/gllam.ts";
import { LlmLayer } from "../llm/client.ts";
import { resolveLlmEndpoints } from "../llm/endpoints.ts";
import { benchOutputArgs, intArg, reportBenchResult } from "./args.ts";

export type ExtractBenchOptions = { data: string; llmServer: string; llmModel?: string; conversations: number; concurrency: number; judge: boolean; db?: string };

export type ExtractBenchResult = {
  conversations: number;
  sessions: number;
  turns: number;
  facts: number;
  nodes: number;
  requests: number;
  concurrency: number;
  fallacy_judge: string;
  wall_s: number;
  llm_wait_s: number;
  /** Wall time not spent waiting on the server, per turn (concurrency 1: GLLAM's own overhead). */
  overhead_ms_per_turn: number;
  /** This process's CPU time per turn (the server runs in another process). */
  cpu_ms_per_turn: number;
  prompt_tokens_per_1000_turns: number;
  completion_tokens_per_1000_turns: number;
};

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export async function runExtractBench(options: ExtractBenchOptions, log: (line: string) => void = () => {}): Promise<ExtractBenchResult> {
  if (!existsSync(options.data)) throw new GllamError("E_NOT_FOUND", `no LoCoMo file at ${options.data}`);
  const samples = ((await Bun.file(options.data).json()) as unknown[]).slice(0, options.conversations);
  const folder = mkdtempSync(join(tmpdir(), "gllam-bench-extract-"));
  const path = options.db ?? join(folder, "extract.db");
  if (options.db && existsSync(options.db)) throw new GllamError("E_BAD_INPUT", `--db ${options.db} exists: the benchmark writes a fresh file`);
  const config = { ...defaultAgenticMemoryConfig(), llm: v.parse(LlmConfigSchema, { fallacy_judge: options.judge ? "auto" : "off" }) };
  const llm = new LlmLayer(resolveLlmEndpoints({ llmServer: options.llmServer, llmModel: options.llmModel }, readEnv()), config.llm);
  const gllam = await Gllam.open(path, { config, llm });
  try {
    const file = join(folder, "locomo.json");
    await Bun.write(file, JSON.stringify(samples));
    const ingest = await gllam.ingestFiles([file], { format: "locomo" });
    log(`ingested ${ingest.episodes} turns of ${samples.length} conversations`);
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await gllam.extract({ concurrency: options.concurrency });
    log(`extracted ${report.extracted} sessions: ${report.facts} facts`);
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (report.failed > 0) throw new GllamError("E_LLM_RESPONSE", `${report.failed} sessions failed: ${report.outcomes.find((o) => o.error)?.error}`);
    const turns = ingest.episodes;
    return {
      conversations: samples.length,
      sessions: report.extracted,
      turns,
      facts: report.facts,
      nodes: report.nodes,
      requests: report.usage.requests,
      concurrency: options.concurrency,
      fallacy_judge: report.fallacyJudge,
      wall_s: round(wallMs / 1000),
      llm_wait_s: round(report.usage.waitMs / 1000),
      overhead_ms_per_turn: round((wallMs - report.usage.waitMs) / turns),
      cpu_ms_per_turn: round((used.user + used.system) / 1000 / turns),
      prompt_tokens_per_1000_turns: Math.round((report.usage.promptTokens * 1000) / turns),
      completion_tokens_per_1000_turns: Math.round((report.usage.completionTokens * 1000) / turns),
    };
  } finally {
    gllam.close();
    rmSync(folder, { recursive: true, force: true });
  }
}

export const extractBenchCommand = defineCommand({
  meta: { name: "extract", description: "Extraction: GLLAM's own overhead per turn and tokens per 1,000 turns against an OpenAI-compatible server (bench/extract/run.sh: the stub)" },
  args: {
    data: { type: "string", description: "LoCoMo JSON file", valueHint: "path", required: true },
    "llm-server": { type: "string", description: "OpenAI-compatible server (the stub for overhead figures)", valueHint: "url", required: true },
    "llm-model": { type: "string", description: "Model name (default: default)", valueHint: "name" },
    conversations: { type: "string", description: "Conversations of the file to use (default: all)", valueHint: "n" },
    concurrency: { type: "string", description: "Sessions in flight (default 1: overhead is then wall time minus server time)", valueHint: "n" },
    judge: { type: "boolean", description: "Also read every claim with the FAST fallacy judge (one more request per fact)" },
    ...benchOutputArgs,
  },
  run: async ({ args }) => {
    const result = await runExtractBench(
      {
        data: args.data,
        llmServer: args["llm-server"],
        llmModel: args["llm-model"],
        conversations: intArg(args.conversations, Number.MAX_SAFE_INTEGER, "--conversations"),
        concurrency: intArg(args.concurrency, 1, "--concurrency"),
        judge: args.judge === true,
        db: args.db,
      },
      (line) => console.error(line),
    );
    await reportBenchResult(result, args.json);
  },
});
