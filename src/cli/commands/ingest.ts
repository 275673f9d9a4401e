import { progress } from "@clack/prompts";
import { defineCommand } from "citty";
import * as v from "valibot";
import { FORMAT_NAMES, type IngestReport } from "../../gllam/types.ts";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";

export const FormatArgSchema = v.picklist(["auto", ...FORMAT_NAMES], `must be one of auto, ${FORMAT_NAMES.join(", ")}`);
export const CountArgSchema = v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(64));

export function formatIngestReport(report: IngestReport): string[] {
  const lines = report.files.map(
    (file) =>
      `${file.path} (${file.format}): ${file.inserted} new, ${file.duplicates} already stored` +
      (file.mentions > 0 ? `, ${file.mentions} entity mentions` : "") +
      (file.badCount > 0 ? `, ${file.badCount} bad records skipped` : "") +
      (file.resumedAt > 0 ? ` (finished an interrupted ingest that had gone through ${file.resumedAt} of ${file.episodes} episodes)` : ""),
  );
  for (const file of report.files) {
    for (const bad of file.bad) lines.push(`  skipped ${bad.where}: ${bad.problem}`);
    if (file.badCount > file.bad.length) lines.push(`  ... and ${file.badCount - file.bad.length} more bad records`);
  }
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
    "skip-bad": { type: "boolean", description: "List bad records and keep the rest (default: a bad record fails the command before any file is written)" },
    wait: { type: "boolean", description: "Give the new episodes model vectors before exiting, and any still queued from earlier ingests (default: later, by `gllam reembed` or a running pool; static vectors are always written at once)" },
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
      const queuedBefore = gllam.countUnembedded();
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
          bar?.error("failed");
          throw error;
        });
      bar?.stop(`ingested ${report.episodes} episodes`);
      for (const line of formatIngestReport(report)) console.log(line);
      for (const stopped of report.unfinished) {
        console.error(
          `gllam: warning: the ingest of ${stopped.path} stopped after ${stopped.done} of ${stopped.episodes} episodes (last progress ${new Date(stopped.updatedAt).toISOString()}); \`gllam ingest\` of the same file finishes it`,
        );
      }
      const staticTier = gllam.staticEmbedder;
      if (staticTier && gllam.staticTierState() === "drift") {
        console.log(`no static vectors written: this database holds another static table's (\`gllam reembed\` rebuilds them with ${staticTier.modelVersion})`);
      } else if (staticTier) {
        console.log(`static vectors written at ingest (${staticTier.modelVersion})`);
      }
      if (!gllam.tiers.model) return;
      if (args.wait) {
        // The pool drains the whole queue: say so when it holds more than this ingest's episodes.
        const older = Math.min(queuedBefore, Math.max(0, gllam.countUnembedded() - report.inserted));
        if (older > 0) console.log(`also embedding ${older} episodes queued before this ingest`);
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
