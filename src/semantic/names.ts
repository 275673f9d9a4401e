/** Entity-name normalisation, pure: the key under which names and aliases meet. */

/**
 * "New York City", "new  york city" and "New-York City!" share one key: Unicode-folded, accents
 * removed, lower case, "&" read as "and", punctuation as spaces, a leading "the" dropped.
 */
export function normalizeEntityName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .replace(/^the\s+/, "");
}

/** The distinct non-empty keys of a node's name and aliases. */
export function nameKeys(name: string, aliases: readonly string[]): string[] {
  return [...new Set([name, ...aliases].map(normalizeEntityName).filter(Boolean))];
}
