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

function trigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  const padded = `  ${text} `;
  for (let i = 0; i + 3 <= padded.length; i++) grams.set(padded.slice(i, i + 3), (grams.get(padded.slice(i, i + 3)) ?? 0) + 1);
  return grams;
}

/** Dice coefficient of two trigram multisets. */
function diceOf(x: Map<string, number>, y: Map<string, number>): number {
  let shared = 0;
  let size = 0;
  for (const [gram, n] of x) {
    shared += Math.min(n, y.get(gram) ?? 0);
    size += n;
  }
  for (const n of y.values()) size += n;
  return size === 0 ? 0 : (2 * shared) / size;
}

/** Dice coefficient of character trigrams (multiset). */
export const trigramDice = (a: string, b: string): number => diceOf(trigrams(a), trigrams(b));

/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn a into b, counted in code
 * points; stops counting past `max` (returns max + 1).
 */
export function editDistance(a: string, b: string, max = Infinity): number {
  const [x, y] = [[...a], [...b]];
  if (Math.abs(x.length - y.length) > max) return max + 1;
  let before = new Int32Array(y.length + 1);
  let previous = Int32Array.from({ length: y.length + 1 }, (_, j) => j);
  let row = new Int32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    row[0] = i;
    let lowest = i;
    for (let j = 1; j <= y.length; j++) {
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row[j] = best;
      if (best < lowest) lowest = best;
    }
    if (lowest > max) return max + 1;
    [before, previous, row] = [previous, row, before];
  }
  return previous[y.length]!;
}

/** How many edits a name key of this length may be away from another and still be a near miss. */
export const nearMissEdits = (length: number): number => (length <= 4 ? 1 : length <= 10 ? 2 : 3);

/**
 * A test for keys that look like `key` mistyped ("kaddy" / "caddy", "postgre sql" / "postgresql"):
 * a few edits apart for their length, or sharing most trigrams. `key` itself is not a near miss.
 */
export function nearMissTest(key: string): (other: string) => boolean {
  const grams = trigrams(key);
  const length = [...key].length;
  return (other) => {
    if (!key || !other || key === other) return false;
    const edits = nearMissEdits(Math.max(length, [...other].length));
    return editDistance(key, other, edits) <= edits || diceOf(grams, trigrams(other)) >= 0.75;
  };
}

export const isNearMiss = (key: string, other: string): boolean => nearMissTest(key)(other);
