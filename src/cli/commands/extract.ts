import { progress } from "@clack/prompts";
import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { parseOperationInput } from "../../gllam/operation.ts";
import { extract } from "../../gllam/operations.ts";
import { formatExtractSummary } from "../../gllam/operations/extraction.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { jsonArg } from "./fact.ts";
import { numberFlag } from "./recall.ts";

export const extractCommand = defineCommand({
  meta: {
    name: "extract",
    description: "Turn ingested sessions into entities and facts with the STRONG LLM (resumes where the last run stopped; --clean re-extracts)",
  },
  args: {
    scope: scopeArg,
    prefix: { type: "string", description: "Only sessions whose id starts with this", valueHint: "text" },
    concurrency: { type: "string", description: "Sessions in flight at once (default 1)", valueHint: "n" },
    resume: { type: "boolean", description: "Skip sessions already extracted (the default)" },
    clean: { type: "boolean", description: "Re-extract every matching session, first removing what its earlier extraction wrote (and only that)" },
    "dry-run": { type: "boolean", description: "Ask the model and print what would be written; write nothing" },
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) => {
    if (args.clean && args.resume) throw new GllamError("E_USAGE", "--resume and --clean exclude each other (see `gllam extract --help`)");
    const input = parseOperationInput(extract, {
      scope: scopeOf(args),
      prefix: args.prefix,
      concurrency: numberFlag(args.concurrency),
      clean: args.clean === true,
      dry_run: args["dry-run"] === true,
    });
    return withEngine(args, { create: false }, async (gllam) => {
      const tty = process.stdout.isTTY === true && !args.json;
      let bar: ReturnType<typeof progress> | undefined;
      let shown = 0;
      const report = await gllam
        .extract({
          scope: input.scope,
          prefix: input.prefix,
          concurrency: input.concurrency,
          clean: input.clean,
          dryRun: input.dry_run,
          onProgress: (p) => {
            if (!tty || p.total === 0) return;
            if (!bar) {
              bar = progress({ max: p.total });
              bar.start(`extracting ${p.total} sessions`);
            }
            bar.advance(p.done - shown, `${p.done}/${p.total} sessions, ${p.facts} facts, ${p.promptTokens + p.completionTokens} tokens, ${p.errors} errors`);
            shown = p.done;
          },
        })
        .catch((error) => {
          bar?.error("stopped");
          throw error;
        });
      bar?.stop(formatExtractSummary(report));
      console.log(args.json ? JSON.stringify(report, null, 2) : extract.toText(report));
      if (report.failed > 0) process.exitCode = 1;
    });
  },
});
