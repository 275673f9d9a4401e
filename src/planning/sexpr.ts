import { GllamError } from "../engine/errors.ts";

/** Where a token starts: 1-based line and column. */
export type Position = { line: number; col: number };

export type SAtom = { kind: "atom"; text: string; pos: Position };
export type SList = { kind: "list"; items: SExpr[]; pos: Position };
export type SExpr = SAtom | SList;

/** Input larger than this is refused before tokenising (the largest IPC STRIPS problems are a few MB). */
export const MAX_PDDL_BYTES = 64 * 1024 * 1024;

/** A syntax or semantic error at a place in a file: "file:line:col: message". */
export function pddlError(file: string, pos: Position | undefined, message: string): GllamError {
  return new GllamError("E_BAD_INPUT", `${file}${pos ? `:${pos.line}:${pos.col}` : ""}: ${message}`);
}

/**
 * Reads the one top-level list of a PDDL file. Comments run from `;` to the end of the line; names
 * are lower-cased (PDDL is case-insensitive).
 */
export function readSExpr(text: string, file: string): SList {
  if (text.length > MAX_PDDL_BYTES) throw pddlError(file, undefined, `file is larger than ${MAX_PDDL_BYTES} bytes`);
  const stack: SList[] = [];
  let top: SList | undefined;
  let line = 1;
  let lineStart = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      line++;
      lineStart = ++i;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    const pos = { line, col: i - lineStart + 1 };
    if (c === ";") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "(") {
      if (top && stack.length === 0) throw pddlError(file, pos, "text after the end of the definition");
      const list: SList = { kind: "list", items: [], pos };
      stack.at(-1)?.items.push(list);
      stack.push(list);
      i++;
      continue;
    }
    if (c === ")") {
      const closed = stack.pop();
      if (!closed) throw pddlError(file, pos, "unbalanced ')'");
      if (stack.length === 0) top = closed;
      i++;
      continue;
    }
    let end = i;
    while (end < text.length && !" \t\r\n\f();".includes(text[end]!)) end++;
    const atom: SAtom = { kind: "atom", text: text.slice(i, end).toLowerCase(), pos };
    if (stack.length === 0) throw pddlError(file, pos, `expected '(' but found "${atom.text}"`);
    stack.at(-1)!.items.push(atom);
    i = end;
  }
  if (stack.length > 0) throw pddlError(file, stack.at(-1)!.pos, "unclosed '(' (missing ')' before the end of the file)");
  if (!top) throw pddlError(file, undefined, "empty file: expected (define ...)");
  return top;
}
