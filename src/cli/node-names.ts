/**
 * Consent on the command line: a name that means no node but is close to existing ones ("Kaddy"
 * when Caddy exists) is more likely a typo than a new thing. On a terminal the person is asked;
 * piped, nobody can answer, and the facade refuses the name with the close ones (exit 1).
 */
import { confirm, isCancel } from "@clack/prompts";
import { describeNearMisses, doubtfulNames, type NameLookup } from "../gllam/types.ts";
import { atTerminal } from "./context.ts";

/** Asks a yes/no question; undefined where nobody can answer (not a terminal). */
export type Ask = (question: string) => Promise<boolean>;

/** A clack confirmation when stdin and stdout are a terminal (default no). */
export function terminalAsk(): Ask | undefined {
  if (!atTerminal()) return undefined;
  return async (message) => {
    const answer = await confirm({ message, initialValue: false });
    return !isCancel(answer) && answer;
  };
}

/**
 * Whether new nodes may be created for doubtful names: true when every doubtful name got a yes
 * from `ask`; false when there is no one to ask or a no (the facade then refuses, naming them).
 */
export async function consentToNewNodes(lookups: NameLookup[], scope: string, ask: Ask | undefined): Promise<boolean> {
  const doubtful = doubtfulNames(lookups);
  if (doubtful.length === 0 || !ask) return false;
  for (const { name, nearMisses } of doubtful) {
    if (!(await ask(`No node is named "${name}" in scope ${scope}; close: ${describeNearMisses(nearMisses)}. Create a new node "${name}"?`))) return false;
  }
  return true;
}
