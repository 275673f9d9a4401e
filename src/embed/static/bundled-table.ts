/**
 * Where the static embedding table comes from: a file named by GLLAM_STATIC_TABLE (tests, custom
 * tables), else the table inside the compiled executable, else the table distilled from the
 * bundled model and the word list on first use and kept in the cache folder. Tables are loaded once
 * per process (synchronously: ingest embeds inside its write transaction).
 */
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import wordListText from "../../../assets/wordlist/en-subtlex-us-30k.txt" with { type: "text" };
import { findCacheFile, isCacheFile, writeCacheFile } from "../../engine/cache-files.ts";
import { embeddedPath, isEmbeddedPath } from "../../engine/embedded.ts";
import { GllamError } from "../../engine/errors.ts";
import { planStaticTable, staticPlanHash, type StaticTablePlan } from "./plan.ts";
import { createStaticEmbedder, type StaticEmbedder } from "./static-embedder.ts";
import { decodeStaticTable, encodeStaticTable, parseWordList } from "./table.ts";

/**
 * The table's file name inside the compiled executable (scripts/build.ts embeds it under it): named
 * by its bytes' hash, so the copy in the cache folder (readTableBytes) is named without reading them.
 */
export const embeddedTableName = (bytes: Uint8Array): string => `static-table-embedded-${Bun.hash(bytes).toString(16)}.bin`;
const EMBEDDED_TABLE = /^static-table-embedded-[0-9a-f]+\.bin$/;
/** Every piece of the bundled model's vocabulary. */
const MODEL_PIECES = 8000;
/** Half the model's 512: 1.5x the speed and half the size, the same fused recall (README, Embeddings). */
const STATIC_DIMS = 256;

let bundledPlan: StaticTablePlan | undefined;

/** The shipped table: all 8,000 model pieces and the 30,000 most frequent words of the list, 256 dimensions. */
export function bundledStaticPlan(): StaticTablePlan {
  bundledPlan ??= planStaticTable(parseWordList(wordListText), { pieceRows: MODEL_PIECES, dims: STATIC_DIMS });
  return bundledPlan;
}

export const cachedTableName = (plan: StaticTablePlan) => `static-table-${staticPlanHash(plan)}.bin`;

/** The file of the table to use without distilling anything, or undefined. */
export function locateStaticTable(env: Record<string, string | undefined> = process.env): string | undefined {
  const named = env.GLLAM_STATIC_TABLE?.trim();
  if (named) {
    if (!existsSync(named)) throw new GllamError("E_CONFIG", `GLLAM_STATIC_TABLE names ${named}, which does not exist`);
    return named;
  }
  const embedded = Bun.embeddedFiles.map((file) => (file as Blob & { name?: string }).name ?? "").find((name) => EMBEDDED_TABLE.test(name));
  if (embedded) return embeddedPath(embedded);
  return findCacheFile(cachedTableName(bundledStaticPlan()));
}

/** Distils a plan's table unless it is cached; returns its path. */
export async function ensureStaticTableFile(plan: StaticTablePlan, onProgress?: (done: number, total: number) => void): Promise<string> {
  const name = cachedTableName(plan);
  const cached = findCacheFile(name);
  if (cached) return cached;
  // Loaded only here: distillation needs the model, using a table does not.
  const { distillStaticTable } = await import("./distill.ts");
  const table = await distillStaticTable(plan, onProgress);
  return writeCacheFile(name, encodeStaticTable(table), { errorCode: "E_EMBEDDER", what: "the static embedding table" });
}

/**
 * Makes sure a table is available before first use (source runs distil the bundled one once,
 * about a minute on one core), and returns its path.
 */
export async function ensureStaticTable(onProgress?: (done: number, total: number) => void): Promise<string> {
  return locateStaticTable() ?? ensureStaticTableFile(bundledStaticPlan(), onProgress);
}

const loaded = new Map<string, StaticEmbedder>();

/** The static embedder of a table file (default: the located one), loaded once per process. */
export function loadStaticEmbedder(path?: string): StaticEmbedder {
  const file = path ?? locateStaticTable();
  if (!file) throw new GllamError("E_EMBEDDER", "the static embedding table is not built yet: run `bun run distill` (or any ingest, which builds it)");
  let embedder = loaded.get(file);
  if (!embedder) {
    const table = decodeStaticTable(readTableBytes(file), file);
    // The spec names the file, so that workers load this table whatever their environment says.
    embedder = createStaticEmbedder(table, { kind: "static", path: file });
    loaded.set(file, embedder);
  }
  return embedder;
}

/** The file mapped read-only (copy-on-write), or undefined where it cannot be (a file others own, a platform without mmap). */
function mapFile(path: string): Uint8Array | undefined {
  try {
    return Bun.mmap(path, { shared: false });
  } catch {
    return undefined;
  }
}

/**
 * A table file's bytes. Reading the ~10 MB of the bundled table cost a fresh process ~70 ms, and a
 * copy in each thread that embeds: a file in the cache folder is mapped instead, its pages read
 * from the page cache as rows are used, once for every process and worker. The table inside the
 * executable cannot be mapped: it is copied out to the cache folder once, under its own name, and
 * that copy is mapped (read as before when no cache folder takes it). A file named by
 * GLLAM_STATIC_TABLE is read: it is the user's, and a mapped file changed in place would crash.
 */
export function readTableBytes(file: string): Uint8Array {
  if (isEmbeddedPath(file)) {
    const name = basename(file.replaceAll("\\", "/"));
    let copy = findCacheFile(name, Bun.file(file).size);
    if (!copy) {
      try {
        copy = writeCacheFile(name, readFileSync(file), { errorCode: "E_EMBEDDER", what: "the static embedding table out of the executable" });
      } catch {
        // No cache folder takes it: read from the executable as before.
      }
    }
    return (copy ? mapFile(copy) : undefined) ?? new Uint8Array(readFileSync(file));
  }
  return (isCacheFile(file) ? mapFile(file) : undefined) ?? new Uint8Array(readFileSync(file));
}
