/**
 * Materialized taxonomy paths, pure. A path is "/" (uncategorized) or "/Seg/Seg/...": an entity's
 * path names the category it is filed under, a category's path is its own place in the tree.
 * Paths compare case-insensitively (ASCII), like SQLite's NOCASE and LIKE, which index them.
 */
import { GllamError } from "../engine/errors.ts";

export const ROOT_PATH = "/";

/** "/Engineering/DBs/" -> "/Engineering/DBs"; refuses empty segments and paths not starting with "/". */
export function normalizeTaxonomyPath(path: string, what = "taxonomy path"): string {
  const trimmed = path.trim();
  if (!trimmed.startsWith("/")) throw new GllamError("E_BAD_INPUT", `${what} must start with / (like /Engineering/Databases), got "${path}"`);
  const segments = trimmed.slice(1).split("/");
  if (segments.at(-1) === "") segments.pop();
  if (segments.length === 0) return ROOT_PATH;
  if (segments.some((s) => s.trim() === "")) throw new GllamError("E_BAD_INPUT", `${what} "${path}" has an empty segment`);
  return `/${segments.map((s) => s.trim()).join("/")}`;
}

/** The segments of a normalized path ("/" has none). */
export function taxonomySegments(path: string): string[] {
  return path === ROOT_PATH ? [] : path.slice(1).split("/");
}

export const joinTaxonomyPath = (parent: string, segment: string) => (parent === ROOT_PATH ? `/${segment}` : `${parent}/${segment}`);

/** A category name as one path segment ("/" cannot appear inside one). */
export const taxonomySegment = (name: string) => name.trim().replace(/\/+/g, "-") || "Unnamed";

const fold = (path: string) => path.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** path is prefix itself or below it (segment boundaries respected: /Eng/DB is not under /Eng/D). */
export function isUnderTaxonomyPath(path: string, prefix: string): boolean {
  if (prefix === ROOT_PATH) return true;
  const [p, q] = [fold(path), fold(prefix)];
  return p === q || p.startsWith(`${q}/`);
}

/** The path after moving the branch `from` to `to` (unchanged when not under `from`). */
export function rewriteTaxonomyPath(path: string, from: string, to: string): string {
  return isUnderTaxonomyPath(path, from) ? to + path.slice(from.length) : path;
}

/** Length in characters (code points), as SQLite's length() and substr() count. */
export const sqlLength = (text: string) => [...text].length;
