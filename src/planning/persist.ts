import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { isMemoryPath } from "../engine/connections.ts";
import { GllamError, describeError } from "../engine/errors.ts";
import { writeFileAtomically } from "../engine/files.ts";
import type { Domain, Problem } from "./pddl-types.ts";
import { writeDomain, writeProblem } from "./writer.ts";

/**
 * Where a database's generated domains go: the folder given (null: none), else
 * `$GLLAM_PDDL_DOMAINS`, else a folder beside the file (`memory.db` -> `memory.db.pddl/`); never
 * the current folder (the seed's ./bench/pddl_domains/ filled whatever folder gllam ran in). An
 * in-memory database gets none unless a folder is given. Paths are made absolute once, here.
 */
export function pddlDomainsDirFor(dbPath: string, given: string | null | undefined, env: Record<string, string | undefined> = process.env): string | null {
  if (given !== undefined) return given === null ? null : resolve(given);
  const configured = env.GLLAM_PDDL_DOMAINS?.trim();
  if (configured) return resolve(configured);
  return isMemoryPath(dbPath) || dbPath === "" ? null : `${resolve(dbPath)}.pddl`;
}

/**
 * A file name stem that is safe anywhere: lower-case letters, digits and dashes, at most 60 of
 * them, plus a hash of the full label so different labels never collide ("../x" cannot escape).
 */
export function safeFileStem(label: string): string {
  const slug = label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 60) || "task";
  return `${slug}-${Bun.hash.wyhash(label).toString(16).padStart(16, "0").slice(0, 8)}`;
}

export type PersistedTask = { domainFile: string; problemFile: string };

/** Writes a generated domain and problem as `<stem>.domain.pddl` and `<stem>.problem.pddl`. */
export function persistPddlTask(folder: string, label: string, domain: Domain, problem: Problem): PersistedTask {
  const stem = safeFileStem(label);
  const files = { domainFile: join(folder, `${stem}.domain.pddl`), problemFile: join(folder, `${stem}.problem.pddl`) };
  try {
    mkdirSync(folder, { recursive: true });
    writeFileAtomically(files.domainFile, writeDomain(domain));
    writeFileAtomically(files.problemFile, writeProblem(problem));
  } catch (error) {
    throw new GllamError("E_CANNOT_OPEN", `cannot write the PDDL files to ${folder}: ${describeError(error)}`);
  }
  return files;
}
