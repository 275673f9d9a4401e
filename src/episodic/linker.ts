/**
 * The deterministic entity linker: which nodes a text mentions, by whole-word, case-insensitive
 * matches of node names and aliases. Pure, so ingest and tests share it without a database.
 */

export type LinkableNode = { id: string; name: string; aliases: string[] };
export type MentionMatcher = (text: string) => string[];

/** Lower-cased word tokens (letters and digits of any script; apostrophes and dots kept inside words, possessive 's dropped). */
export function tokenizeWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’.\-][\p{L}\p{N}]+)*/gu) ?? []).map((word) => word.replace(/['’]s$/, ""));
}

/** Names shorter than this (after tokenising) are too ambiguous to link on their own ("a", "it"). */
const MIN_NAME_CHARS = 2;

export function createMentionMatcher(nodes: LinkableNode[]): MentionMatcher {
  // First token -> phrases starting with it; longest phrases first so "new york city" wins over "new york".
  const phrases = new Map<string, { tokens: string[]; nodeId: string }[]>();
  for (const node of nodes) {
    for (const name of new Set([node.name, ...node.aliases])) {
      const tokens = tokenizeWords(name);
      if (tokens.length === 0 || tokens.join(" ").length < MIN_NAME_CHARS) continue;
      const list = phrases.get(tokens[0]!) ?? [];
      list.push({ tokens, nodeId: node.id });
      phrases.set(tokens[0]!, list);
    }
  }
  for (const list of phrases.values()) list.sort((a, b) => b.tokens.length - a.tokens.length);
  return (text) => {
    if (phrases.size === 0) return [];
    const words = tokenizeWords(text);
    const found = new Set<string>();
    for (let i = 0; i < words.length; i++) {
      for (const phrase of phrases.get(words[i]!) ?? []) {
        if (phrase.tokens.every((token, j) => words[i + j] === token)) found.add(phrase.nodeId);
      }
    }
    return [...found];
  };
}
