/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980): "hiking" and
 * "hikes" both become "hike". The episode lexicon stems its documents and its queries with it, so
 * it only has to agree with itself (FTS5 stems with its own copy of the same algorithm).
 */

const isConsonantAt = (word: string, i: number): boolean => {
  const c = word[i]!;
  if ("aeiou".includes(c)) return false;
  if (c === "y") return i === 0 || !isConsonantAt(word, i - 1);
  return true;
};

/** m in [C](VC)^m[V]: how many vowel-consonant sequences the stem has. */
export function measure(stem: string): number {
  let m = 0;
  let i = 0;
  const n = stem.length;
  while (i < n && isConsonantAt(stem, i)) i++;
  while (i < n) {
    while (i < n && !isConsonantAt(stem, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonantAt(stem, i)) i++;
    m++;
  }
  return m;
}

const hasVowel = (stem: string) => [...stem].some((_, i) => !isConsonantAt(stem, i));
const endsDoubleConsonant = (w: string) => w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonantAt(w, w.length - 1);
/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string) => {
  const n = w.length;
  return n >= 3 && isConsonantAt(w, n - 1) && !isConsonantAt(w, n - 2) && isConsonantAt(w, n - 3) && !"wxy".includes(w[n - 1]!);
};

/** Replaces the first matching suffix whose stem passes the condition; a matching suffix ends the search either way. */
function replaceSuffix(word: string, rules: [string, string][], condition: (stem: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

const STEP2: [string, string][] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"], ["abli", "able"],
  ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"], ["ization", "ize"], ["ation", "ate"],
  ["ator", "ate"], ["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"],
  ["iviti", "ive"], ["biliti", "ble"],
];
const STEP3: [string, string][] = [["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""]];
const STEP4 = ["al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"];

// Longest first, so "ement" is tried before "ment" and "ent".
const byLength = <T extends string | [string, string]>(list: T[]) => [...list].sort((a, b) => (typeof b === "string" ? b : b[0]).length - (typeof a === "string" ? a : a[0]).length);
const STEP2_SORTED = byLength(STEP2);
const STEP3_SORTED = byLength(STEP3);
const STEP4_SORTED = byLength(STEP4);

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  for (const suffix of ["ed", "ing"]) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (!hasVowel(stem)) return w;
    if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return stem + "e";
    if (endsDoubleConsonant(stem) && !"lsz".includes(stem[stem.length - 1]!)) return stem.slice(0, -1);
    if (measure(stem) === 1 && endsCvc(stem)) return stem + "e";
    return stem;
  }
  return w;
}

const step1c = (w: string) => (w.endsWith("y") && hasVowel(w.slice(0, -1)) ? w.slice(0, -1) + "i" : w);

function step4(w: string): string {
  for (const suffix of STEP4_SORTED) {
    if (!w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    if (measure(stem) <= 1) return w;
    if (suffix === "ion" && !(stem.endsWith("s") || stem.endsWith("t"))) return w;
    return stem;
  }
  return w;
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const stem = w.slice(0, -1);
    const m = measure(stem);
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem;
  }
  if (w.endsWith("ll") && measure(w) > 1) w = w.slice(0, -1);
  return w;
}

/** The stem of a lower-case word; words of one or two letters and words with other than a-z are kept. */
export function porterStem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = step1c(step1b(step1a(word)));
  w = replaceSuffix(w, STEP2_SORTED, (stem) => measure(stem) > 0);
  w = replaceSuffix(w, STEP3_SORTED, (stem) => measure(stem) > 0);
  return step5(step4(w));
}
