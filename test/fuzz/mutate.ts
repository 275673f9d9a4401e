/**
 * Deterministic input mutation for fuzz tests: a seeded random generator and mutation operators
 * over bytes, text and JSON values. Generic: it knows nothing of any format, so every parser's
 * fuzz test can derive its inputs from its own seeds.
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
export function mutateBytes(rng: Rng, input: Uint8Array, others: readonly Uint8Array[] = []): Uint8Array {
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

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A replacement value of another kind: type swaps, huge numbers, long or odd strings, deep nesting. */
function strangeValue(rng: Rng): Json {
  switch (rng.int(10)) {
    case 0:
      return rng.pick([1e20, -1e20, 2 ** 63, 1e308, -0, 0.5, 1714557600.123456, Number.MAX_SAFE_INTEGER + 2, -1]);
    case 1:
      return rng.pick(["", " ", "\u0000", "\u0000\u0001\u0002", "x".repeat(1 + rng.int(5000)), "2023-02-30", "1714557600.5", "\ud800", "->-> 1,1"]);
    case 2:
      return null;
    case 3:
      return rng.chance(0.5);
    case 4:
      return [];
    case 5:
      return {};
    case 6: {
      // deep nesting
      let value: Json = rng.chance(0.5) ? 1 : "deep";
      const depth = 1 + rng.int(rng.chance(0.2) ? 2000 : 100);
      for (let i = 0; i < depth; i++) value = rng.chance(0.5) ? [value] : { a: value };
      return value;
    }
    case 7:
      return rng.int(1000);
    case 8:
      return rng.pick(INTERESTING_TEXT);
    default:
      return [rng.pick(INTERESTING_TEXT), rng.int(5)];
  }
}

type Container = Json[] | { [key: string]: Json };
type Slot = { parent: Container; key: string | number };

/** Places in a JSON value (its containers' entries, breadth first), up to a bound. */
function slots(root: Json, limit = 2000): Slot[] {
  const found: Slot[] = [];
  const queue: Json[] = [root];
  for (let q = 0; q < queue.length && found.length < limit; q++) {
    const item = queue[q]!;
    if (item === null || typeof item !== "object") continue;
    for (const key of Array.isArray(item) ? item.keys() : Object.keys(item)) {
      found.push({ parent: item, key });
      queue.push((item as Record<string | number, Json>)[key]!);
    }
  }
  return found;
}

/** One random structural mutation of a JSON value (the input is not changed): replace, remove, duplicate or wrap a node. */
export function mutateJson(rng: Rng, input: Json): Json {
  const root: Json = structuredClone(input);
  const all = slots(root);
  if (all.length === 0 || rng.chance(0.02)) return rng.chance(0.5) ? strangeValue(rng) : [root];
  const { parent, key } = rng.pick(all);
  const entries = parent as Record<string | number, Json>;
  switch (rng.int(4)) {
    case 0:
      entries[key] = strangeValue(rng);
      break;
    case 1:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete entries[key];
      break;
    case 2:
      if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(parent[key as number]!));
      else entries[`${key}_copy`] = structuredClone(entries[key]!);
      break;
    default:
      entries[key] = [entries[key]!];
  }
  return root;
}

/** A mutant of a JSON seed: 1-3 structural mutations, then (sometimes) 1-3 byte mutations of its text. */
export function mutateJsonText(rng: Rng, seed: Json, others: readonly Uint8Array[] = []): Uint8Array {
  let value = seed;
  for (let i = rng.int(3) + 1; i > 0; i--) value = mutateJson(rng, value);
  let bytes = toBytes(JSON.stringify(value));
  if (rng.chance(0.4)) for (let i = rng.int(3) + 1; i > 0; i--) bytes = mutateBytes(rng, bytes, others);
  return bytes;
}
