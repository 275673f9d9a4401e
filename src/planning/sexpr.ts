import { GllamError } from "../engine/errors.ts";

/** Where a token starts: 1-based line and column. */
export type Position = { line: number; col: number };

export type SAtom = { kind: "atom"; text: string; pos: Position };
export type SList = { kind: "list"; items: SExpr[]; pos: Position };
export type SExpr = SAtom | SList;

/** Input larger than this is refused before tokenising (the largest IPC STRIPS problems are a few MB). */
export const MAX_PDDL_BYTES = 64 * 1024 * 1024;

/** Lists nested deeper than this are refused: the parser walks formulas recursively (real files nest about ten deep). */
export const MAX_PDDL_DEPTH = 1000;

/** Longest message a PDDL error quotes (a name can be megabytes long in a broken file). */
const MAX_MESSAGE = 300;

/** A syntax or semantic error at a place in a file: "file:line:col: message". */
export function pddlError(file: string, pos: Position | undefined, message: string): GllamError {
  const shown = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}... (${message.length} characters)` : message;
  return new GllamError("E_BAD_INPUT", `${file}${pos ? `:${pos.line}:${pos.col}` : ""}: ${shown}`);
}

/** An atom runs to the next space, parenthesis or comment. */
const ATOM = /[^ \t\r\n\f();]+/y;

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
      if (stack.length >= MAX_PDDL_DEPTH) throw pddlError(file, pos, `lists nested more than ${MAX_PDDL_DEPTH} deep`);
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
    ATOM.lastIndex = i;
    ATOM.exec(text);
    const end = ATOM.lastIndex;
    const atom: SAtom = { kind: "atom", text: text.slice(i, end).toLowerCase(), pos };
    if (stack.length === 0) throw pddlError(file, pos, `expected '(' but found "${atom.text}"`);
    stack.at(-1)!.items.push(atom);
    i = end;
  }
  if (stack.length > 0) throw pddlError(file, stack.at(-1)!.pos, "unclosed '(' (missing ')' before the end of the file)");
  if (!top) throw pddlError(file, undefined, "empty file: expected (define ...)");
  return top;
}
