import { defineCommand } from "citty";
import { BufferedWriter, writeOutputStream, type ExportReport } from "../../gllam/types.ts";
import { globalArgs, scopeOf, withEngine } from "../context.ts";

const describe = (report: ExportReport) =>
  `${report.lines - 1} records (${Object.entries(report.records)
    .map(([record, n]) => `${record} ${n}`)
    .join(", ")}) from ${report.scope === null ? "every scope" : `scope ${report.scope}`}`;

export const exportCommand = defineCommand({
  meta: {
    name: "export",
    description: "Write memory as JSONL (a header line, then nodes, sources, links with their events, sessions, episodes, mentions, summaries, extraction checkpoints, procedures with versions), streamed from one snapshot",
  },
  args: {
    scope: { type: "string", description: "Only this scope (default: every scope)", valueHint: "scope" },
    out: { type: "string", description: "Write to this file, whole or not at all (default: stdout)", valueHint: "file" },
    "with-vectors": { type: "boolean", description: "Carry the stored vectors (base64) with their models, for `gllam import --with-vectors`" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const options = { scope: args.scope === undefined ? undefined : scopeOf(args), withVectors: args["with-vectors"] };
    return withEngine(args, { readOnly: true, quietDrift: true }, async (gllam) => {
      if (args.out === undefined) {
        const stdout = new BufferedWriter(1);
        gllam.exportMemory((text) => stdout.write(text), options);
        stdout.flush();
        return;
      }
      const report = writeOutputStream(args.out, "the export", (write) => gllam.exportMemory(write, options));
      console.log(`exported ${describe(report)} to ${args.out}`);
    });
  },
});
