/**
 * Node names on the command line: the node a name (id or alias) means in the scope, and when a
 * name that means none may become a new node. A name close to existing ones ("Kaddy" when Caddy
 * exists) is more likely a typo than a new thing: creating it needs --new, or a yes on a terminal.
 */
import { confirm, isCancel } from "@clack/prompts";
import type { Gllam } from "../gllam/gllam.ts";
import { GllamError } from "../engine/errors.ts";
import type { SemanticNode } from "../memory/types.ts";
import type { NearMiss } from "../semantic/nodes.ts";

const describeNearMisses = (misses: NearMiss[]) => misses.map((m) => `${m.name} (${m.id})`).join(", ");

/** The node a name means in the scope, or undefined; an ambiguous name is refused with its candidates. */
function resolveName(gllam: Gllam, name: string, scope: string): SemanticNode | undefined {
  const { node, candidates, ambiguous } = gllam.resolveEntity(name, { scope });
  if (ambiguous) throw new GllamError("E_BAD_INPUT", `"${name}" may mean ${candidates.map((c) => `${c.id} (${c.name})`).join(", ")}: give the id`);
  return node;
}

/** The id of the node a name means; none is E_NOT_FOUND, naming close names of the same scope. */
export function nodeNamed(gllam: Gllam, name: string, scope: string): { id: string } {
  const node = resolveName(gllam, name, scope);
  if (node) return { id: node.id };
  const misses = gllam.findNearMissNodes(name, { scope });
  throw new GllamError("E_NOT_FOUND", `no node named "${name}" in scope ${scope}${misses.length > 0 ? ` (close: ${describeNearMisses(misses)})` : ""}`);
}

/** A name of a fact to record: the node it means, or the close names a new node would sit beside. */
export type NameLookup = { name: string; node?: SemanticNode; nearMisses: NearMiss[] };

export function lookUpName(gllam: Gllam, name: string, scope: string): NameLookup {
  const node = resolveName(gllam, name, scope);
  return { name, node, nearMisses: node ? [] : gllam.findNearMissNodes(name, { scope }) };
}

/** Asks a yes/no question; undefined where nobody can answer (not a terminal). */
export type Ask = (question: string) => Promise<boolean>;

/** A clack confirmation when stdin and stdout are a terminal (default no). */
export function terminalAsk(): Ask | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return async (message) => {
    const answer = await confirm({ message, initialValue: false });
    return !isCancel(answer) && answer;
  };
}

/**
 * A name that means no node but is close to existing ones becomes a new node only with consent:
 * `allowNew` (--new), or a yes from `ask`. Otherwise E_NOT_FOUND lists the close names (exit 1).
 */
export async function consentToNewNodes(lookups: NameLookup[], scope: string, options: { allowNew: boolean; ask?: Ask }): Promise<void> {
  if (options.allowNew) return;
  const doubtful = lookups.filter((l, i) => !l.node && l.nearMisses.length > 0 && lookups.findIndex((o) => o.name === l.name) === i);
  for (const { name, nearMisses } of doubtful) {
    const close = describeNearMisses(nearMisses);
    if (options.ask && (await options.ask(`No node is named "${name}" in scope ${scope}; close: ${close}. Create a new node "${name}"?`))) continue;
    throw new GllamError("E_NOT_FOUND", `no node named "${name}" in scope ${scope}; close: ${close}. Name one of those, or pass --new to create "${name}"`);
  }
}
