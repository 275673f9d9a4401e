/**
 * Deterministic mutations for fuzz tests: the same seed gives the same inputs, so a failure names
 * its seed and input number and reproduces. Text mutations work on characters and tokens; JSON
 * mutations on parsed values; byte mutations on encoded files.
 */
import { seededRandom } from "../../src/bench/random.ts";

export type Rng = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
};

/** The project's seeded generator (mulberry32): the same sequence for the same seed on every machine. */
export function createRng(seed: number): Rng {
  const random = seededRandom(seed);
  return { next: random.next, int: random.int, pick: (items) => items[random.int(items.length)]!, chance: (p) => random.next() < p };
}

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

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

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

const encoder = new TextEncoder();
export const toBytes = (text: string): Uint8Array => encoder.encode(text);

/** Bytes that parsers treat specially: NUL, line breaks, quotes, brackets, invalid and partial UTF-8. */
const INTERESTING_BYTES = [0x00, 0x0a, 0x0d, 0x22, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x2c, 0x3a, 0x23, 0x80, 0xbf, 0xc0, 0xc3, 0xe2, 0xed, 0xf0, 0xf4, 0xff, 0x7f, 0x1b, 0x09];
/** Text fragments that stress parsers: huge and odd numbers, escapes, nesting, dates, control characters. */
const INTERESTING_TEXT = [
  "1e400", "-1e400", "1e20", "9223372036854775808", "18446744073709551616", "1714557600.123456", "-0", "0.0000001", "NaN", "null", "true", "[]", "{}", '""',
  '"\\u0000"', '"\\ud800"', "\\", '"', "\n", "\r\n", "\u0000", "\u2028", "\ufeff", "2023-02-30", "2024-13-01T25:61:61Z", "31 February 2023", "->-> 1,1",
  "# ", "```", "\t", " ".repeat(200), "#".repeat(7),
];

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/** One random byte-level mutation: flip, set, insert, delete, duplicate, truncate or splice in another input. */
export function mutateBytes(input: Uint8Array, rng: Rng, others: readonly Uint8Array[] = []): Uint8Array {
  const at = rng.int(input.length + 1);
  const [head, tail] = [input.subarray(0, at), input.subarray(at)];
  switch (rng.int(8)) {
    case 0: // flip a bit
    case 1: {
      // set an interesting byte
      if (input.length === 0) return input;
      const copy = input.slice();
      const i = rng.int(copy.length);
      copy[i] = rng.chance(0.5) ? copy[i]! ^ (1 << rng.int(8)) : rng.pick(INTERESTING_BYTES);
      return copy;
    }
    case 2: // insert interesting bytes or text
      return concat(head, rng.chance(0.5) ? new Uint8Array([rng.pick(INTERESTING_BYTES)]) : toBytes(rng.pick(INTERESTING_TEXT)), tail);
    case 3: // delete a range
      return concat(head, tail.subarray(1 + rng.int(16)));
    case 4: // duplicate a range
      return concat(head, tail.subarray(0, 1 + rng.int(64)), tail);
    case 5: // truncate
      return input.slice(0, at);
    case 6: {
      // splice: the head of this input, the tail of another
      const other = others.length > 0 ? rng.pick(others) : input;
      return concat(head, other.subarray(rng.int(other.length + 1)));
    }
    default: // random bytes
      return concat(head, Uint8Array.from({ length: 1 + rng.int(8) }, () => rng.int(256)), tail);
  }
}

/** A mutant of a JSON seed: structural mutations, then (sometimes) 1-3 byte mutations of its text. */
export function mutateJsonText(seed: Json, rng: Rng, others: readonly Uint8Array[] = []): Uint8Array {
  let bytes = toBytes(JSON.stringify(mutateJson(seed, rng)) ?? "null");
  if (rng.chance(0.4)) for (let i = rng.int(3) + 1; i > 0; i--) bytes = mutateBytes(bytes, rng, others);
  return bytes;
}
