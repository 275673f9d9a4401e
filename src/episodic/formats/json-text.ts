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

/** Offset of the first syntax error in a JSON text, or -1 when it is valid. */
export function findJsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? "x")) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) fail();
    i += match![0].length;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      space();
      if (text[i] === "}") return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail();
        string();
        space();
        if (text[i] !== ":") fail();
        i++;
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    } else if (c === "[") {
      i++;
      space();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        space();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    } else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else number();
  };
  try {
    value();
    space();
    return i < text.length ? i : -1;
  } catch (offset) {
    return offset as number;
  }
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
