import { defineCommand } from "citty";
import { backup } from "../../gllam/operations.ts";
import { parseOperationInput } from "../../gllam/operation.ts";
import { globalArgs, withEngine } from "../context.ts";

export const backupCommand = defineCommand({
  meta: { name: "backup", description: "Copy the database consistently while other processes write (VACUUM INTO: one snapshot, compacted, written beside OUT and renamed into place)" },
  args: {
    out: { type: "positional", description: "The copy's path", required: true },
    force: { type: "boolean", description: "Replace OUT if it exists" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const input = parseOperationInput(backup, { out: String(args.out), force: args.force === true });
    return withEngine(args, { readOnly: true, quietDrift: true }, async (gllam) => console.log(backup.toText(await backup.run(gllam, input))));
  },
});
