/**
 * Stored vectors in an export file (`gllam export --with-vectors`): each tier's vectors of nodes and
 * episodes as base64 of the bytes vec0 keeps (float32 for the model tier, int8 for the static one),
 * with the model that made them; and carried back into a database whose vector space is the same.
 */
import type { Database } from "bun:sqlite";
import * as v from "valibot";
import { GllamError } from "../engine/errors.ts";
import { readMetadata, writeMetadata } from "../engine/metadata.ts";
import { ensureStaticVectorTable, ensureVectorTables, hasTable, VECTOR_TIERS, type VectorTier } from "../engine/schema.ts";

export const VECTOR_KINDS = ["node", "episode"] as const;
type VectorKind = (typeof VECTOR_KINDS)[number];

const TierModelSchema = v.nullable(v.strictObject({ version: v.pipe(v.string(), v.nonEmpty()), dims: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(8192)) }));
/** The models of the vectors a file carries, per tier (null: none of that tier). */
export const TierModelsSchema = v.strictObject({ model: TierModelSchema, static: TierModelSchema });
export type TierModels = v.InferOutput<typeof TierModelsSchema>;

export const VectorRecordSchema = v.strictObject({
  record: v.literal("vector"),
  tier: v.picklist(["model", "static"]),
  kind: v.picklist(VECTOR_KINDS),
  id: v.union([v.string(), v.pipe(v.number(), v.safeInteger())]),
  scope: v.string(),
  data: v.pipe(v.string(), v.base64("must be base64")),
});
export type VectorRecord = v.InferOutput<typeof VectorRecordSchema>;

const TIERS: VectorTier[] = ["model", "static"];
const table = (tier: VectorTier, kind: VectorKind) => VECTOR_TIERS[tier][kind === "node" ? "nodes" : "episodes"];
const idColumn = (kind: VectorKind) => (kind === "node" ? "node_id" : "episode_id");
const bytesPerValue = (tier: VectorTier) => (tier === "model" ? 4 : 1);

/** The models of the stored vectors of each tier. */
export function readTierModels(db: Database): TierModels {
  const tier = (t: VectorTier) => {
    const version = readMetadata(db, VECTOR_TIERS[t].versionKey);
    const dims = readMetadata(db, VECTOR_TIERS[t].dimsKey);
    return version && dims ? { version, dims: Number(dims) } : null;
  };
  return { model: tier("model"), static: tier("static") };
}

/** Every stored vector of a scope (every scope for null): tier by tier, nodes then episodes, in id order. */
export function* vectorRecords(db: Database, scope: string | null): Generator<VectorRecord> {
  for (const tier of TIERS) {
    for (const kind of VECTOR_KINDS) {
      if (!hasTable(db, table(tier, kind))) continue;
      const select = (from: string, where = "") => `SELECT ${idColumn(kind)} AS id, scope, embedding FROM ${from} WHERE (?1 IS NULL OR scope = ?1)${where}`;
      // A scope with static cells holds its episodes' static vectors there (static-vectors.ts writeStaticRows).
      const { episodeCells, cellScopes } = VECTOR_TIERS.static;
      const cells = tier === "static" && kind === "episode" && hasTable(db, episodeCells);
      const rows = db.query<{ id: string | number; scope: string; embedding: Uint8Array }, [string | null]>(
        cells
          ? `${select(table(tier, kind), ` AND scope NOT IN (SELECT scope FROM ${cellScopes})`)} UNION ALL ${select(episodeCells)} ORDER BY id`
          : `${select(table(tier, kind))} ORDER BY ${idColumn(kind)}`,
      );
      for (const row of rows.iterate(scope)) yield { record: "vector", tier, kind, id: row.id, scope: row.scope, data: Buffer.from(row.embedding).toString("base64") };
    }
  }
}

/**
 * Writes carried vectors into the database; the caller holds the write transaction. A tier's
 * tables and model are set up at its first vector; a database already holding another model's
 * vectors of that tier is refused. A carried vector takes its owner off the tier's queue.
 */
export function vectorWriter(db: Database, models: TierModels): (record: VectorRecord) => void {
  const ready = new Set<VectorTier>();
  const prepare = (tier: VectorTier) => {
    const model = models[tier];
    if (!model) throw new GllamError("E_BAD_INPUT", `a ${tier}-tier vector, but the header names no ${tier}-tier model`);
    if (tier === "static") {
      if (!ensureStaticVectorTable(db, model.version, model.dims)) {
        throw new GllamError("E_EMBEDDING_DRIFT", `the database's static vectors come from ${readMetadata(db, "static_model_version")}, the file's from ${model.version}`);
      }
    } else {
      const stored = readMetadata(db, VECTOR_TIERS.model.versionKey);
      if (stored !== undefined && stored !== model.version) throw new GllamError("E_EMBEDDING_DRIFT", `the database's vectors come from ${stored}, the file's from ${model.version}`);
      ensureVectorTables(db, model.dims);
      if (stored === undefined) writeMetadata(db, VECTOR_TIERS.model.versionKey, model.version);
    }
    ready.add(tier);
  };
  const dequeue = {
    node: (tier: VectorTier) => db.query(`DELETE FROM node_vector_queue WHERE tier = '${tier}' AND node_id = ?`),
    episode: (tier: VectorTier) => (tier === "model" ? db.query("DELETE FROM episode_vector_queue WHERE episode_id = ?") : undefined),
  };
  return (record) => {
    if (!ready.has(record.tier)) prepare(record.tier);
    const bytes = Buffer.from(record.data, "base64");
    const expected = models[record.tier]!.dims * bytesPerValue(record.tier);
    if (bytes.length !== expected) throw new GllamError("E_BAD_INPUT", `a ${record.tier}-tier vector of ${bytes.length} bytes; ${models[record.tier]!.version} vectors have ${expected}`);
    db.query(`INSERT INTO ${table(record.tier, record.kind)} (${idColumn(record.kind)}, scope, embedding) VALUES (?, ?, ${VECTOR_TIERS[record.tier].sqlVector})`).run(
      record.id,
      record.scope,
      bytes,
    );
    dequeue[record.kind](record.tier)?.run(record.id);
  };
}
