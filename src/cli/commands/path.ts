import { defineCommand } from "citty";
import { GllamError } from "../../engine/errors.ts";
import { formatLink } from "../../gllam/types.ts";
import { globalArgs, scopeArg, scopeOf, withEngine } from "../context.ts";
import { optionalTime } from "./fact.ts";

export const pathCommand = defineCommand({
  meta: { name: "path", description: "The shortest chain of active links between two nodes (with caveats); exit 1 when there is none" },
  args: {
    a: { type: "positional", description: "From (name, id or alias)", required: true },
    b: { type: "positional", description: "To (name, id or alias)", required: true },
    "max-hops": { type: "string", description: "Longest chain to look for (default 4)", valueHint: "n" },
    "as-of": { type: "string", description: "World time the links must hold at", valueHint: "date" },
    scope: scopeArg,
    json: { type: "boolean", description: "Print the result as JSON" },
    ...globalArgs,
  },
  run: ({ args }) => {
    const maxHops = args["max-hops"] === undefined ? undefined : Number(args["max-hops"]);
    if (maxHops !== undefined && !Number.isInteger(maxHops)) throw new GllamError("E_BAD_INPUT", `--max-hops must be an integer, got ${args["max-hops"]}`);
    const asOf = optionalTime(args["as-of"], "--as-of");
    const scope = scopeOf(args);
    return withEngine(args, { readOnly: true }, async (gllam) => {
      const [a, b] = [gllam.nodeNamed(args.a, { scope }), gllam.nodeNamed(args.b, { scope })];
      const path = gllam.findMultiHopPath(a.id, b.id, { maxHops, asOf, scope });
      // Exit 1 when there is no path, so scripts can test for one (as `gllam plan` does for a plan).
      if (args.json) console.log(JSON.stringify(path, null, 2));
      else if (!path.found) console.log(`no path of at most ${maxHops ?? 4} hops from ${args.a} to ${args.b} (${path.explored} nodes explored)`);
      else {
        console.log(`${path.nodes.map((n) => n.name).join(" → ")} (${path.hops} hops)`);
        path.links.forEach((link, i) => {
          const self = path.nodes[i]!;
          const other = path.nodes[i + 1]!;
          console.log(formatLink({ ...link, otherId: other.id, otherName: other.name }, self.name));
        });
      }
      return path.found ? 0 : 1;
    });
  },
});
