import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { GllamError, describeError } from "../engine/errors.ts";
import { writeFileAtomically } from "../engine/files.ts";
import type { Domain, Problem } from "./pddl-types.ts";
import { writeDomain, writeProblem } from "./writer.ts";

/** Where generated domains go unless configured (the seed's ./bench/pddl_domains/). */
export const DEFAULT_PDDL_DOMAINS_DIR = "bench/pddl_domains";

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
