/**
 * A vector cache by (model version, text hash) in its own SQLite file: identical texts are embedded
 * once, across databases and runs (benchmarks ingest the same haystacks into many fresh databases).
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { useExtensionCapableSqlite } from "../engine/sqlite-library.ts";
import type { Embedder } from "./embedder.ts";

export type CachedEmbedder = Embedder & { readonly hits: number; readonly misses: number; close(): void };

const textKey = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("base64");

export function createCachedEmbedder(inner: Embedder, cachePath: string): CachedEmbedder {
  mkdirSync(dirname(cachePath), { recursive: true });
  // The first database a process opens fixes the SQLite library for all (macOS: one that loads sqlite-vec).
  useExtensionCapableSqlite();
  const db = new Database(cachePath, { create: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA busy_timeout = 5000");
  db.run("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, text_hash)) WITHOUT ROWID");
  const read = db.query<{ vector: Uint8Array }, [string, string]>("SELECT vector FROM vectors WHERE model = ? AND text_hash = ?");
  const write = db.query("INSERT OR REPLACE INTO vectors (model, text_hash, vector) VALUES (?, ?, ?)");
  let hits = 0;
  let misses = 0;
  return {
    get modelVersion() {
      return inner.modelVersion;
    },
    get dims() {
      return inner.dims;
    },
    spec: inner.spec,
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
    async embed(texts: string[]): Promise<Float32Array[]> {
      const model = inner.modelVersion;
      const keys = texts.map(textKey);
      const out: (Float32Array | undefined)[] = keys.map((key) => {
        const row = read.get(model, key);
        return row ? new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)) : undefined;
      });
      // Each distinct missing text once, even when a batch repeats it.
      const missing = [...new Set(keys.flatMap((key, i) => (out[i] ? [] : [key])))];
      hits += texts.length - out.filter((v) => !v).length;
      if (missing.length > 0) {
        const textOf = new Map(keys.map((key, i) => [key, texts[i]!]));
        const vectors = await inner.embed(missing.map((key) => textOf.get(key)!));
        misses += missing.length;
        const fresh = new Map(missing.map((key, i) => [key, vectors[i]!]));
        db.transaction(() => {
          for (const [key, vector] of fresh) write.run(model, key, new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
        }).immediate();
        keys.forEach((key, i) => (out[i] ??= fresh.get(key)));
      }
      return out as Float32Array[];
    },
    close: () => db.close(),
  };
}
