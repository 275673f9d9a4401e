import { progress } from "@clack/prompts";
import { defineCommand } from "citty";
import * as v from "valibot";
import type { IngestReport } from "../../episodic/ingest.ts";
import { staticTierState } from "../../episodic/static-vectors.ts";
import { FORMAT_NAMES } from "../../episodic/formats/source.ts";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

export const FormatArgSchema = v.picklist(["auto", ...FORMAT_NAMES], `must be one of auto, ${FORMAT_NAMES.join(", ")}`);
export const CountArgSchema = v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(64));

export function formatIngestReport(report: IngestReport): string[] {
  const lines = report.files.map(
    (file) =>
      `${file.path} (${file.format}): ${file.inserted} new, ${file.duplicates} already stored` +
      (file.mentions > 0 ? `, ${file.mentions} entity mentions` : "") +
      (file.bad.length > 0 ? `, ${file.bad.length} bad records skipped` : ""),
  );
  for (const file of report.files) for (const bad of file.bad) lines.push(`  skipped ${bad.where}: ${bad.problem}`);
  const rate = report.seconds > 0 ? Math.round(report.episodes / report.seconds) : report.episodes;
  lines.push(`ingested ${report.episodes} episodes from ${report.files.length} file(s) in ${report.seconds.toFixed(2)} s (${rate}/s): ${report.inserted} new, ${report.duplicates} already stored`);
  return lines;
}

export const ingestCommand = defineCommand({
  meta: { name: "ingest", description: "Store conversation logs and documents as episodes (JSONL, LoCoMo, LongMemEval, BEAM, Markdown, text)" },
  args: {
    files: { type: "positional", description: "Files to ingest", required: true },
    format: { type: "string", description: "auto (default), jsonl, locomo, longmemeval, beam, markdown or text", valueHint: "name" },
    scope: scopeArg,
    session: { type: "string", description: "Session id for markdown/text files and JSONL lines without one", valueHint: "id" },
    "skip-bad": { type: "boolean", description: "List bad records and keep the rest (default: a bad record fails its file, nothing written)" },
    wait: { type: "boolean", description: "Give the new episodes model vectors before exiting (default: later, by `gllam reembed` or a running pool; static vectors are always written at once)" },
    workers: { type: "string", description: "Embedding workers with --wait (default 2)", valueHint: "n" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const format = parseInput(FormatArgSchema, args.format ?? "auto", "--format");
    const workers = args.workers === undefined ? 2 : parseInput(CountArgSchema, args.workers, "--workers");
    const files = args._.map(String);
    const scope = scopeOf(args);
    return withEngine(args, { create: true, staticTable: true }, async (gllam) => {
      const tty = process.stdout.isTTY === true;
      let bar: ReturnType<typeof progress> | undefined;
      let reported = 0;
      const report = await gllam
        .ingestFiles(files, { format, scope, session: args.session, skipBad: args["skip-bad"] }, (done, total, file) => {
          if (!tty) return;
          if (!bar) {
            bar = progress({ max: total });
            bar.start(`ingesting ${total} episodes`);
          }
          bar.advance(done - reported, `${file}: ${done}/${total}`);
          reported = done;
        })
        .catch((error) => {
          bar?.error("failed: nothing from the failing file was written");
          throw error;
        });
      bar?.stop(`ingested ${report.episodes} episodes`);
      for (const line of formatIngestReport(report)) console.log(line);
      const staticTier = gllam.staticEmbedder;
      if (staticTier && staticTierState(gllam.dbRO(), staticTier) === "drift") {
        console.log(`no static vectors written: this database holds another static table's (\`gllam reembed\` rebuilds them with ${staticTier.modelVersion})`);
      } else if (staticTier) {
        console.log(`static vectors written at ingest (${staticTier.modelVersion})`);
      }
      if (!gllam.tiers.model) return;
      if (args.wait) {
        const filler = gllam.startEmbeddingWorkerPool(workers, 1000, {
          onProgress: (done, remaining) => tty && process.stdout.write(`\rembedded ${done}, ${remaining} to go\x1b[K`),
        });
        const embedded = await filler.waitForEmbeddings();
        if (tty) process.stdout.write("\n");
        console.log(`embedded ${embedded} episodes (${gllam.embedder.modelVersion})`);
      } else {
        const waiting = gllam.countUnembedded();
        if (waiting > 0) console.log(`${waiting} episodes await model vectors (\`gllam reembed\` fills them; \`--wait\` embeds during ingest)`);
      }
    });
  },
});
