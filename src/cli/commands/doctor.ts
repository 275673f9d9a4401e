import { defineCommand } from "citty";
import { doctor } from "../../gllam/operations.ts";
import { globalArgs, withEngine } from "../context.ts";

export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description: "Check the database (integrity, full-text index, references, embedding drift, queued vectors, interrupted jobs, WAL size, static table) and say what to do about each finding; exit 0 when healthy, 1 with findings",
  },
  args: {
    checkpoint: { type: "boolean", description: "First checkpoint the WAL into the file and truncate it (needs no other process holding an old snapshot)" },
    json: { type: "boolean", description: "Print the report as JSON" },
    ...globalArgs,
  },
  run: ({ args }) =>
    withEngine(args, { create: false, quietDrift: true }, async (gllam) => {
      if (args.checkpoint) {
        const result = gllam.checkpointWAL("TRUNCATE");
        console.log(result.busy ? "checkpoint: another process holds an old snapshot; the WAL could not be truncated" : `checkpoint: ${result.checkpointedPages} pages copied into the file, WAL truncated`);
      }
      const report = await doctor.run(gllam, {});
      console.log(args.json ? JSON.stringify(report, null, 2) : doctor.toText(report));
      return report.healthy ? 0 : 1;
    }),
});
