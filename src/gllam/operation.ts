/**
 * One operation = one facade call = one input schema, shared by every face: the CLI builds the
 * input from its flags, MCP takes it as a tool's arguments, HTTP as a request body, and all parse
 * it with the same valibot schema (MCP's and OpenAPI's JSON Schema are generated from it). Inputs
 * are snake_case, as JSON APIs and MCP tools spell them; results are the facade's own objects.
 */
import * as v from "valibot";
import { parseInput, type FieldNamer } from "../memory/parse.ts";
import type { Gllam } from "./gllam.ts";

export type Operation<S extends v.GenericSchema = v.GenericSchema, R = unknown> = {
  /** snake_case: the MCP tool's name and the operation's name in errors and OpenAPI. */
  name: string;
  /** One sentence for people and models choosing a tool. */
  summary: string;
  input: S;
  /** Reads only: faces open the file read-only (nothing created, nothing changed). */
  readOnly: boolean;
  /** How a long-running face (MCP, HTTP) opens memory for it; default: read-only for reads, else an existing file. */
  opens?: import("./open.ts").OpenMode;
  run(gllam: Gllam, input: v.InferOutput<S>): R | Promise<R>;
  /** The same without memory, for operations that need none: a face may run it before any memory file exists. */
  withoutMemory?(input: v.InferOutput<S>): R | Promise<R>;
  /** The result as Markdown for people and LLMs (the CLI's default output, MCP's text content). */
  toText(result: Awaited<R>): string;
};

export const defineOperation = <S extends v.GenericSchema, R>(operation: Operation<S, R>): Operation<S, R> => operation;

export type { FieldNamer };

/** A face's raw input parsed with the operation's schema: E_BAD_INPUT names the field (as `name` spells it on the face's wire). */
export const parseOperationInput = <S extends v.GenericSchema>(operation: Operation<S, unknown>, raw: unknown, name?: FieldNamer): v.InferOutput<S> =>
  parseInput(operation.input, raw, `${operation.name} input`, name);

/** Parses a face's raw input (errors name the field) and runs the operation. */
export async function runOperation<S extends v.GenericSchema, R>(gllam: Gllam, operation: Operation<S, R>, raw: unknown): Promise<Awaited<R>> {
  return await operation.run(gllam, parseOperationInput(operation, raw));
}

/** How memory is opened for an operation: a read never creates anything, a write creates a file only when it may be the first thing stored. */
export const openModeOf = (operation: Operation<v.GenericSchema, unknown>): import("./open.ts").OpenMode =>
  operation.opens ?? (operation.readOnly ? { readOnly: true } : { create: false });

// ------------------------------------------------------------------ wire pieces

/** A date on the wire: epoch milliseconds or an ISO-8601 string. */
export const WireTimeSchema = v.pipe(
  v.union([v.pipe(v.number(), v.finite()), v.pipe(v.string(), v.nonEmpty())]),
  v.transform((value) => (typeof value === "number" ? value : new Date(value).getTime())),
  v.check((ms) => Number.isFinite(ms), "must be a date: epoch milliseconds or ISO-8601"),
);

/** A whole number in [min, max], with one message that says so (a flag like `-k abc` arrives as NaN). */
export const IntegerSchema = (min: number, max: number) =>
  v.pipe(v.number(`must be an integer in ${min}..${max}`), v.integer(`must be an integer in ${min}..${max}`), v.minValue(min, `must be an integer in ${min}..${max}`), v.maxValue(max, `must be an integer in ${min}..${max}`));

export const NameSchema = v.pipe(v.string(), v.trim(), v.nonEmpty("must not be empty"), v.maxLength(500));
export const TextSchema = v.pipe(v.string(), v.maxLength(1_000_000));
