import { defineCommand } from "citty";
import { globalArgs } from "../context.ts";
import { startRepl } from "../repl/repl.ts";

export const replCommand = defineCommand({
  meta: {
    name: "repl",
    description: "Interactive session on a terminal: type commands as on the command line against one open memory (the model loads once); also `gllam` with no command",
  },
  args: { ...globalArgs },
  run: ({ args }) => startRepl(args),
});
