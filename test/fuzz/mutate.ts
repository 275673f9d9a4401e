/**
 * Deterministic mutations for fuzz tests: the same seed gives the same inputs, so a failure names
 * its seed and input number and reproduces. Text mutations work on characters and tokens; JSON
 * mutations on parsed values.
 */
import { seededRandom } from "../../src/bench/random.ts";

export { seededRandom };
export type Rng = ReturnType<typeof seededRandom>;

/** Characters parsers care about, and a few they should never see. */
const SPECIAL = ["(", ")", "[", "]", "{", "}", '"', "'", ",", ":", ";", "-", "?", "=", "\\", "\n", "\r", "\t", " ", "\0", "\uFEFF", "\uD800", "é", "𝔘", "\u202E"];
const HUGE = ["1e309", "-1e309", "99999999999999999999999999", "-0", "NaN", "Infinity", "1e-400", "0x1F", "9007199254740993", "1.5", "-1"];
const TOKEN = /(\s+|[()[\]{},:;"])/;

const at = (rng: Rng, text: string) => rng.int(text.length + 1);

/** Edits the tokens of a window of the text (tokenising all of a large input for each edit is slow). */
function editTokens(text: string, rng: Rng, edit: (tokens: string[], i: number) => void): string {
  const start = at(rng, text);
  const tokens = text.slice(start, start + 400).split(TOKEN);
  edit(tokens, rng.int(tokens.length));
  return text.slice(0, start) + tokens.join("") + text.slice(start + 400);
}

/** Each operation turns one text into another; mutateText applies one to four of them. */
const TEXT_OPS: ((text: string, rng: Rng) => string)[] = [
  function flipCharacter(text, rng) {
    const i = rng.int(text.length);
    return text.slice(0, i) + rng.pick(SPECIAL)! + text.slice(i + 1);
  },
  function flipBit(text, rng) {
    const i = rng.int(text.length);
    return text.slice(0, i) + String.fromCharCode((text.charCodeAt(i) || 0) ^ (1 << rng.int(8))) + text.slice(i + 1);
  },
  (text, rng) => text.slice(0, at(rng, text)),
  function deleteToken(text, rng) {
    return editTokens(text, rng, (tokens, i) => tokens.splice(i, 1 + rng.int(3)));
  },
  function duplicateToken(text, rng) {
    return editTokens(text, rng, (tokens, i) => tokens.splice(i, 0, ...tokens.slice(i, i + 1 + rng.int(6))));
  },
  function splice(text, rng) {
    const from = at(rng, text);
    const piece = text.slice(from, from + rng.int(200));
    const to = at(rng, text);
    return text.slice(0, to) + piece + text.slice(to);
  },
  function nestDeeply(text, rng) {
    const depth = rng.pick([2, 50, 1_000, 100_000])!;
    // Balanced or not; "(and " is a nested formula, which is valid PDDL at any depth.
    const [open, close] = rng.pick([["(", ")"], ["[", "]"], ['{"a":', "}"], ["(and ", ")"], ["(and ", ")"]])!;
    const closed = open === "(and " || rng.int(2) === 0;
    // Mostly just before a list opens, where a parser reading nested formulas recurses.
    const start = at(rng, text);
    const bracket = text.slice(start).search(/[([{]/);
    const i = rng.int(4) > 0 && bracket >= 0 ? start + bracket : start;
    return text.slice(0, i) + open.repeat(depth) + (closed ? close.repeat(depth) : "") + text.slice(i);
  },
  function hugeNumber(text, rng) {
    const numbers = [...text.matchAll(/-?\d+(\.\d+)?/g)];
    const match = rng.pick(numbers);
    const huge = rng.pick(HUGE)!;
    if (!match) return text + huge;
    return text.slice(0, match.index) + huge + text.slice(match.index + match[0].length);
  },
  function insertSpecial(text, rng) {
    const i = at(rng, text);
    return text.slice(0, i) + rng.pick(SPECIAL)!.repeat(1 + rng.int(3)) + text.slice(i);
  },
];

export function mutateText(text: string, rng: Rng): string {
  let out = text;
  for (let n = 1 + rng.int(4); n > 0; n--) out = rng.pick(TEXT_OPS)!(out, rng);
  return out;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Stand-ins of every JSON type, for type swaps. */
const SWAPS: Json[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 63, "", "x", "\0", "Ünïcödé 𝔘", [], [1, "a"], {}, { a: null }];

/** A value nested `depth` deep without recursion (a nested patch must not blow the fuzzer's own stack). */
function nested(depth: number, leaf: Json, asObject: boolean): Json {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asObject ? { a: value } : [value];
  return value;
}

/** Every container in the value, with its parent chain length, breadth first (bounded). */
function containers(root: Json): (Json[] | { [key: string]: Json })[] {
  const out: (Json[] | { [key: string]: Json })[] = [];
  const queue: Json[] = [root];
  while (queue.length > 0 && out.length < 500) {
    const value = queue.shift()!;
    if (value === null || typeof value !== "object") continue;
    out.push(value);
    queue.push(...(Array.isArray(value) ? value : Object.values(value)));
  }
  return out;
}

const JSON_OPS: ((container: Json[] | { [key: string]: Json }, key: string | number, rng: Rng) => void)[] = [
  function swapType(c, key, rng) {
    (c as Record<string | number, Json>)[key] = structuredClone(rng.pick(SWAPS)!);
  },
  function remove(c, key) {
    if (Array.isArray(c)) c.splice(Number(key), 1);
    else delete c[key];
  },
  function duplicate(c, key, rng) {
    const value = (c as Record<string | number, Json>)[key]!;
    if (Array.isArray(c)) c.splice(Number(key), 0, structuredClone(value));
    else c[`${key}${rng.pick(["", " ", "_", "X"])}${rng.int(3) ? "" : rng.int(10)}`.replace(/^$/, "k")] = structuredClone(value);
  },
  function respell(c, key, rng) {
    if (Array.isArray(c)) return;
    const value = c[key]!;
    delete c[key];
    const spelling = rng.pick([String(key).toUpperCase(), String(key).replace(/_/g, " "), ` ${key} `, `${key}\0`, "__proto__", "constructor", "", "!!"])!;
    Object.defineProperty(c, spelling, { value, enumerable: true, writable: true, configurable: true }); // "__proto__" as a key, as JSON.parse makes it
  },
  function hugeNumber(c, key, rng) {
    (c as Record<string | number, Json>)[key] = rng.pick([1e308, -1e308, 2 ** 53 + 1, Number.MAX_VALUE, Number.MIN_VALUE, 1001, 9, -1001, 0.5])!;
  },
  function nestDeeply(c, key, rng) {
    (c as Record<string | number, Json>)[key] = nested(rng.pick([3, 100, 10_000])!, (c as Record<string | number, Json>)[key] ?? null, rng.int(2) === 0);
  },
  function insertNul(c, key, rng) {
    const value = (c as Record<string | number, Json>)[key];
    (c as Record<string | number, Json>)[key] = typeof value === "string" ? `${value.slice(0, 3)}\0${value.slice(3)}` : `\0${rng.int(10)}`;
  },
];

/** A mutated deep copy of a JSON value: one to four changes at random places. */
export function mutateJson<T>(value: T, rng: Rng): unknown {
  const root = { root: structuredClone(value) as Json };
  for (let n = 1 + rng.int(4); n > 0; n--) {
    const container = rng.pick(containers(root))!;
    const keys = Array.isArray(container) ? container.map((_, i) => i) : Object.keys(container);
    if (keys.length === 0) {
      (container as Record<string, Json>)[Array.isArray(container) ? 0 : "k"] = structuredClone(rng.pick(SWAPS)!);
      continue;
    }
    rng.pick(JSON_OPS)!(container, rng.pick(keys as (string | number)[])!, rng);
  }
  return root.root;
}
