import { defineCommand } from "citty";
import * as v from "valibot";
import { parseInput } from "../../memory/parse.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { jsonArg } from "./fact.ts";

const CountArg = (max: number) => v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(max));
const print = (json: boolean | undefined, value: unknown, text: () => string) => console.log(json ? JSON.stringify(value, null, 2) : text());

const listCommand = defineCommand({
  meta: { name: "list", description: "Nodes at a taxonomy path or below it (case-insensitive), in path order" },
  args: {
    prefix: { type: "positional", description: "Path like /Engineering/Databases (/ for all)", required: true },
    limit: { type: "string", description: "At most this many (default 100)", valueHint: "n" },
    categories: { type: "boolean", description: "Category nodes only" },
    scope: scopeArg,
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) => {
    const limit = args.limit === undefined ? 100 : parseInput(CountArg(1_000_000), args.limit, "--limit");
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const nodes = gllam.getNodesByTaxonomyPrefix(args.prefix, { scope: scopeOf(args), limit, categoriesOnly: args.categories });
      print(args.json, nodes, () => (nodes.length === 0 ? `nothing at or below ${args.prefix}` : nodes.map((n) => `${n.taxonomyPath}  ${n.name}${n.isCategory ? " [category]" : ` (${n.type})`}  ${n.id}`).join("\n")));
    });
  },
});

const cyclesCommand = defineCommand({
  meta: { name: "cycles", description: "Loops among is_a / subclass_of links (Kahn's algorithm)" },
  args: { scope: scopeArg, ...jsonArg, ...globalArgs },
  run: ({ args }) =>
    withEngine(args, { readOnly: true }, async (gllam) => {
      const report = gllam.detectTaxonomyCycles({ scope: scopeOf(args) });
      const name = (id: string) => gllam.getNode(id)?.name ?? id;
      print(args.json, report, () => (report.hasCycle ? report.cycles.map((c) => `cycle: ${c.map(name).join(" <-> ")}`).join("\n") : "no taxonomy cycles"));
    }),
});

const consolidateCommand = defineCommand({
  meta: { name: "consolidate", description: "Move a branch under another (500-row transactions; resumes an interrupted run)" },
  args: {
    from: { type: "positional", description: "Branch to move, like /Engineering/DBs", required: true },
    to: { type: "positional", description: "Branch it joins, like /Engineering/Infrastructure/Databases", required: true },
    scope: scopeArg,
    ...jsonArg,
    ...globalArgs,
  },
  run: ({ args }) =>
    withEngine(args, { create: false }, async (gllam) => {
      const tty = process.stdout.isTTY === true && !args.json;
      const report = await gllam.consolidateTaxonomyBranch(args.from, args.to, {
        scope: scopeOf(args),
        onBatch: (p) => tty && process.stdout.write(`\rmoved ${p.moved}/${p.total}\x1b[K`),
      });
      if (tty && report.batches > 0) process.stdout.write("\n");
      print(args.json, report, () => `${report.resumed ? "resumed and finished" : "moved"} ${report.from} -> ${report.to}: ${report.moved} node(s) in ${report.batches} batch(es), ${report.seconds.toFixed(2)} s`);
    }),
});

const categorizeCommand = defineCommand({
  meta: { name: "categorize", description: "File uncategorized nodes (path /) under the nearest category, or one for their type" },
  args: { batch: { type: "string", description: "Nodes to file (default 50)", valueHint: "n" }, scope: scopeArg, ...jsonArg, ...globalArgs },
  run: ({ args }) => {
    const batch = args.batch === undefined ? 50 : parseInput(CountArg(10_000), args.batch, "--batch");
    return withEngine(args, { create: false }, async (gllam) => {
      const report = await gllam.processUncategorizedBatch(batch, { scope: scopeOf(args) });
      print(args.json, report, () =>
        [
          ...report.categorized.map((c) => `${c.nodeId} -> ${c.path}: ${c.reason}`),
          ...report.skipped.map((s) => `skipped ${s.nodeId}: ${s.reason}`),
          `filed ${report.categorized.length}, ${report.createdCategories.length} new categories, ${report.remaining} still uncategorized`,
        ].join("\n"),
      );
    });
  },
});

const candidatesCommand = defineCommand({
  meta: { name: "candidates", description: "Category pairs that look like synonyms (names and embeddings), best first" },
  args: { "min-score": { type: "string", description: "Lowest score shown (default 0.6)", valueHint: "x" }, scope: scopeArg, ...jsonArg, ...globalArgs },
  run: ({ args }) => {
    const minScore = args["min-score"] === undefined ? undefined : parseInput(v.pipe(v.string(), v.toNumber(), v.minValue(0), v.maxValue(1)), args["min-score"], "--min-score");
    return withEngine(args, { create: false }, async (gllam) => {
      const candidates = await gllam.discoverTaxonomyMergeCandidates({ scope: scopeOf(args), minScore });
      print(args.json, candidates, () =>
        candidates.length === 0
          ? "no merge candidates"
          : candidates.map((c) => `${c.score.toFixed(2)}  ${c.from.path} (${c.from.nodes}) -> ${c.to.path} (${c.to.nodes})  name ${c.nameScore.toFixed(2)}, vectors ${c.embeddingScore?.toFixed(2) ?? "n/a"}`).join("\n"),
      );
    });
  },
});

export const taxonomyCommand = defineCommand({
  meta: { name: "taxonomy", description: "The ontological layer: list a branch, find cycles, consolidate branches, file orphans, find synonyms" },
  subCommands: { list: listCommand, cycles: cyclesCommand, consolidate: consolidateCommand, categorize: categorizeCommand, candidates: candidatesCommand },
});
