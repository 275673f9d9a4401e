/**
 * Node ids, pure. A node's identity includes its scope: every id the engine derives (a named
 * entity, a source, a category, a contradiction, a fallacy, a sense) is nodeIdFor(scope, slug),
 * bare in the default scope and `scope/slug` in any other. Neither a scope (ScopeSchema) nor a slug
 * contains "/", so an id splits back into exactly one (scope, slug): two tenants' "Payroll" are
 * two nodes, and one tenant's ids never collide with another's.
 */
import { GllamError } from "../engine/errors.ts";
import { DEFAULT_SCOPE } from "../memory/types.ts";
import { normalizeEntityName } from "./names.ts";

export function nodeIdFor(scope: string, slug: string): string {
  if (!slug || slug.includes("/")) throw new GllamError("E_BAD_INPUT", `a node id slug must be non-empty and without "/", got "${slug}"`);
  return scope === DEFAULT_SCOPE ? slug : `${scope}/${slug}`;
}

/** "Let's Encrypt" -> "let-s-encrypt": the normalised words joined by "-" (empty when there are no letters or digits). */
export const nameSlug = (name: string): string => normalizeEntityName(name).replace(/ /g, "-");

/** The slug of an id within its scope ("/" replaced), for ids derived from it (a sense of a node). */
export function slugOfId(id: string, scope: string): string {
  const local = scope !== DEFAULT_SCOPE && id.startsWith(`${scope}/`) ? id.slice(scope.length + 1) : id;
  return local.replaceAll("/", "-");
}

/**
 * An id a caller chooses for a new node may not enter another scope's part of the id space: an id
 * with a "/" must be `<its own scope>/<slug>` (else scope "a" could create "b/payroll" first and
 * block tenant b's own Payroll). The message names only the caller's scope.
 */
export function checkNewNodeId(id: string, scope: string): void {
  if (!id.includes("/")) return;
  const slash = id.indexOf("/");
  if (scope !== DEFAULT_SCOPE && id.slice(0, slash) === scope && !id.includes("/", slash + 1)) return;
  const allowed = scope === DEFAULT_SCOPE ? "ids in the default scope have none" : `ids of scope "${scope}" with one read "${scope}/slug"`;
  throw new GllamError("E_BAD_INPUT", `invalid node id "${id}": "/" separates a scope from a slug (${allowed})`);
}
