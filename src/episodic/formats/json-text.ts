/**
 * JSON.parse with a location: Bun's parser says what went wrong but not where, so on failure a
 * small validating scanner walks the text to the first offending character.
 */
import { GllamError } from "../../engine/errors.ts";

export type TextPosition = { line: number; col: number };

export function positionAt(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

const OBJECT = 1;
const ARRAY = 0;

/**
 * Offset of the first syntax error in a JSON text, or -1 when it is valid. Iterative (an explicit
 * stack of open containers), so a text nested millions deep gets a position, not a stack overflow.
 */
export function findJsonErrorOffset(text: string): number {
  let i = 0;
  const open: number[] = [];
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  // Each reader leaves i after what it read and returns true, or leaves i at the offending character.
  const string = (): boolean => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) return false;
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) return false;
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) return false;
      }
      i++;
    }
    if (i >= text.length) return false;
    i++;
    return true;
  };
  const key = (): boolean => {
    space();
    if (text[i] !== '"' || !string()) return false;
    space();
    if (text[i] !== ":") return false;
    i++;
    return true;
  };
  const scalar = (): boolean => {
    const c = text[i];
    if (c === '"') return string();
    for (const word of ["true", "false", "null"]) {
      if (c === word[0]) {
        if (!text.startsWith(word, i)) return false;
        i += word.length;
        return true;
      }
    }
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) return false;
    i += match[0].length;
    return true;
  };
  for (;;) {
    // A value starts here: a container opens (and its first value follows), or a scalar is read.
    space();
    const c = text[i];
    const close = c === "{" ? "}" : c === "[" ? "]" : undefined;
    if (close) {
      i++;
      space();
      if (text[i] !== close) {
        open.push(c === "{" ? OBJECT : ARRAY);
        if (c === "{" && !key()) return i;
        continue;
      }
      i++;
    } else if (!scalar()) return i;
    // After a value: close containers, or take a comma and go on to the next value.
    for (;;) {
      space();
      const top = open.at(-1);
      if (top === undefined) return i < text.length ? i : -1;
      if (text[i] === ",") {
        i++;
        if (top === OBJECT && !key()) return i;
        break;
      }
      if (text[i] !== (top === OBJECT ? "}" : "]")) return i;
      i++;
      open.pop();
    }
  }
}

/**
 * Whether a JSON text nests deeper than `limit` (strings skipped), scanning no further than that:
 * parsing millions of levels takes seconds, and nothing so deep is kept anyway.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Parses JSON, or throws E_BAD_INPUT naming where:line:col and the problem. */
export function parseJsonText(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const offset = findJsonErrorOffset(text);
    const { line, col } = positionAt(text, offset < 0 ? text.length : offset);
    const reason = (error as Error).message.replace(/^JSON Parse error:\s*/, "");
    throw new GllamError("E_BAD_INPUT", `${where}:${line}:${col}: invalid JSON (${reason})`);
  }
}
