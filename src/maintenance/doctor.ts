/**
 * `gllam doctor`: checks a memory file and says what to do about each finding (the command to
 * run). Everything runs on the read handle and changes nothing: the file's own integrity, the
 * full-text index, references, the vector tiers against the active embedders, the vector queues,
 * interrupted jobs and the WAL.
 */
import type { Database } from "bun:sqlite";
import { runOnReader } from "../engine/connections.ts";
import { describeError } from "../engine/errors.ts";
import { listRunningJobs } from "../engine/jobs.ts";
import { readMetadata } from "../engine/metadata.ts";
import type { Store } from "../engine/store.ts";
import { WAL_TRUNCATE_ABOVE_BYTES, walSizeBytes } from "../engine/wal.ts";
import type { Embedder, EmbeddingTiers } from "../embed/embedder.ts";
import { INGEST_JOB, STALE_JOB_MS } from "../episodic/ingest-jobs.ts";
import { countStaticEpisodeVectors, staticTierState } from "../episodic/static-vectors.ts";
import type { MaintenanceJobRow } from "../memory/types.ts";
import { checkEmbeddingModelVersion } from "../semantic/node-vectors.ts";
import { CONSOLIDATE_JOB } from "../semantic/taxonomy-consolidate.ts";

/** Something wrong, and the command that puts it right. */
export type DoctorFinding = { check: string; problem: string; fix: string };
/** A check that ran, and what it saw. */
export type DoctorCheck = { name: string; ok: boolean; detail: string };
export type DoctorReport = { path: string; healthy: boolean; checks: DoctorCheck[]; findings: DoctorFinding[] };

type Context = { store: Store; db: Database; path: string; tiers: EmbeddingTiers & { embedder: Embedder }; now: number };
type CheckResult = { detail: string; findings: Omit<DoctorFinding, "check">[] };
type Check = { name: string; run: (context: Context) => CheckResult };

/** How to rebuild a file whose pages or index are damaged: what SQLite can still read, into a new file. */
const REBUILD = "restore the latest `gllam backup`, or rebuild what is readable into a new file: `gllam export --out memory.jsonl`, then `gllam import memory.jsonl --db NEW.db`";
const MAX_LISTED = 5;

const count = (db: Database, sql: string): number => db.query<{ n: number }, []>(sql).get()?.n ?? 0;

const CHECKS: Check[] = [
  {
    name: "integrity",
    run: ({ db }) => {
      const rows = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check(20)").all().map((row) => row.integrity_check);
      if (rows.length === 1 && rows[0] === "ok") return { detail: "PRAGMA integrity_check: ok", findings: [] };
      return { detail: `${rows.length} problem(s)`, findings: [{ problem: `PRAGMA integrity_check: ${rows.slice(0, MAX_LISTED).join("; ")}`, fix: REBUILD }] };
    },
  },
  {
    name: "full-text index",
    run: ({ store, db }) => {
      // FTS5's own check that the index is consistent with itself (contentless: no content to compare
      // with). It needs a handle that may write: the writer, rolled back, or a read handle opened read-write.
      const check = (handle: Database) => handle.query("INSERT INTO episodes_fts (episodes_fts, rank) VALUES ('integrity-check', 0)").run();
      if (store.readOnly) runOnReader(db, () => check(db));
      else store.probe(check);
      const [indexed, episodes] = [count(db, "SELECT count(*) AS n FROM episodes_fts"), count(db, "SELECT count(*) AS n FROM episodes")];
      if (indexed === episodes) return { detail: `${indexed} episodes indexed`, findings: [] };
      return { detail: `${indexed} rows for ${episodes} episodes`, findings: [{ problem: `the full-text index holds ${indexed} rows for ${episodes} episodes`, fix: REBUILD }] };
    },
  },
  {
    name: "references",
    run: ({ db }) => {
      const rows = db.query<{ table: string; rowid: number | null; parent: string; fkid: number }, []>("PRAGMA foreign_key_check").all();
      if (rows.length === 0) return { detail: "PRAGMA foreign_key_check: ok", findings: [] };
      const byKey = Map.groupBy(rows, (row) => `${row.table}\u0000${row.parent}`);
      return {
        detail: `${rows.length} dangling reference(s)`,
        findings: [...byKey.values()].map((group) => {
          const { table, parent } = group[0]!;
          const ids = group.flatMap((row) => (row.rowid === null ? [] : [row.rowid]));
          const listed = ids.length > 0 ? ` (rowid ${ids.slice(0, MAX_LISTED).join(", ")}${ids.length > MAX_LISTED ? ", ..." : ""})` : "";
          return { problem: `${group.length} ${table} row(s) point at missing ${parent} rows${listed}`, fix: danglingFix(db, table, [...new Set(group.map((row) => row.fkid))], ids) };
        }),
      };
    },
  },
  {
    name: "embedding drift",
    run: ({ db, tiers }) => {
      const findings: CheckResult["findings"] = [];
      const model = checkEmbeddingModelVersion(db, tiers.embedder);
      if (model.drift) findings.push({ problem: `stored vectors come from ${model.previousModel}, the active embedder is ${model.activeModel}`, fix: "`gllam reembed` (or run with the embedder that made them)" });
      const staticState = tiers.static && staticTierState(db, tiers.static);
      if (staticState === "drift") findings.push({ problem: `stored static vectors come from ${readMetadata(db, "static_model_version")}, the active static table is ${tiers.static!.modelVersion}`, fix: "`gllam reembed`" });
      return { detail: `model ${model.previousModel ?? "(no vectors yet)"}, static ${readMetadata(db, "static_model_version") ?? "(no vectors yet)"}`, findings };
    },
  },
  {
    name: "vector queues",
    run: ({ db, tiers }) => {
      const findings: CheckResult["findings"] = [];
      const modelTier = tiers.embedder.modelVersion !== tiers.static?.modelVersion;
      const [episodes, nodes] = [count(db, "SELECT count(*) AS n FROM episode_vector_queue"), count(db, "SELECT count(*) AS n FROM node_vector_queue WHERE tier = 'model'")];
      const queued = episodes + nodes;
      if (modelTier && queued > 0) {
        findings.push({ problem: `${episodes} episode(s) and ${nodes} node(s) wait for a model vector (search ranks them by static vectors and words meanwhile)`, fix: "`gllam reembed`" });
      }
      const staticQueued = count(db, "SELECT count(*) AS n FROM node_vector_queue WHERE tier = 'static'");
      const missingStatic = count(db, "SELECT count(*) AS n FROM episodes") - countStaticEpisodeVectors(db);
      if (tiers.static && staticTierState(db, tiers.static) !== "drift" && staticQueued + missingStatic > 0) {
        findings.push({ problem: `${missingStatic} episodes and ${staticQueued} nodes have no static vector`, fix: "`gllam reembed`" });
      }
      return { detail: `${queued} waiting for model vectors, ${staticQueued + missingStatic} for static vectors`, findings };
    },
  },
  {
    name: "jobs",
    run: ({ db, now }) => {
      const jobs = listRunningJobs(db);
      // A live job advances every second or so; one left behind for a minute was interrupted.
      const stale = jobs.filter((job) => now - job.updatedAt >= STALE_JOB_MS);
      return {
        detail: `${jobs.length - stale.length} running now, ${stale.length} interrupted`,
        findings: stale.map((job) => ({ problem: `${job.kind} job ${job.id} (scope ${job.scope}) stopped at ${new Date(job.updatedAt).toISOString()} without finishing`, fix: jobFix(job) })),
      };
    },
  },
  {
    name: "WAL",
    run: ({ path }) => {
      const bytes = walSizeBytes(path);
      const detail = `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
      if (bytes <= WAL_TRUNCATE_ABOVE_BYTES) return { detail, findings: [] };
      return {
        detail,
        findings: [{ problem: `the WAL is ${detail}: checkpoints cannot finish (a process keeps an old snapshot open, or writers never let go)`, fix: "stop long-running readers, then `gllam doctor --checkpoint`" }],
      };
    },
  },
  {
    name: "static table",
    run: ({ db, tiers }) => {
      const stored = readMetadata(db, "static_model_version");
      if (tiers.static) return { detail: `${tiers.static.modelVersion} at hand`, findings: [] };
      if (stored === undefined) return { detail: "no static vectors stored, no static table at hand", findings: [] };
      return {
        detail: "not at hand",
        findings: [{ problem: `the file holds static vectors (${stored}) but no static table is at hand: searches skip that tier`, fix: "`gllam reembed` (a source checkout distils the table first; the compiled binary carries it)" }],
      };
    },
  },
];

/** Links and episodes are forgotten with what derives from them; other rows go by the reference they break. */
function danglingFix(db: Database, table: string, fkids: number[], ids: number[]): string {
  const listed = ids.slice(0, MAX_LISTED);
  if (table === "semantic_links" && listed.length > 0) return listed.map((id) => `\`gllam forget link ${id}\``).join(", ");
  if (table === "episodes" && listed.length > 0) return listed.map((id) => `\`gllam forget episode ${id}\``).join(", ");
  const keys = db.query<{ from: string; to: string; table: string }, [string, number]>('SELECT "from", "to", "table" FROM pragma_foreign_key_list(?1) WHERE id = ?2 ORDER BY seq');
  const columns = (names: string[]) => (names.length === 1 ? names[0] : `(${names.join(", ")})`);
  const broken = fkids.map((fkid) => {
    const key = keys.all(table, fkid);
    return `${columns(key.map((k) => k.from))} NOT IN (SELECT ${key.map((k) => k.to).join(", ")} FROM ${key[0]?.table})`;
  });
  const sql = `DELETE FROM ${table} WHERE ${broken.join(" OR ")}`;
  return `delete them: \`sqlite3 FILE "${sql}"\``;
}

function jobFix(job: MaintenanceJobRow): string {
  const scope = job.scope === "default" ? "" : ` --scope ${job.scope}`;
  switch (job.kind) {
    case INGEST_JOB: {
      const { path, format, session } = job.params as { path?: string; format?: string; session?: string | null };
      return `\`gllam ingest ${path ?? "FILE"}${format && format !== "auto" ? ` --format ${format}` : ""}${session ? ` --session ${session}` : ""}${scope}\` finishes it (the same file again resumes where it stopped)`;
    }
    case "reembed":
      return "`gllam reembed` resumes it";
    case CONSOLIDATE_JOB:
      return `\`gllam sleep${scope}\` resumes it (or \`gllam taxonomy consolidate ${String(job.params.from)} ${String(job.params.to)}${scope}\`)`;
    default:
      return "run the command that started it again";
  }
}

export function runDoctor(store: Store, tiers: EmbeddingTiers & { embedder: Embedder }, now = Date.now()): DoctorReport {
  const context: Context = { store, db: store.dbRO(), path: store.path, tiers, now };
  const checks: DoctorCheck[] = [];
  const findings: DoctorFinding[] = [];
  for (const check of CHECKS) {
    let result: CheckResult;
    try {
      result = check.run(context);
    } catch (error) {
      // A damaged page stops a check midway: that is a finding, and the other checks still run.
      result = { detail: "failed", findings: [{ problem: describeError(error), fix: REBUILD }] };
    }
    checks.push({ name: check.name, ok: result.findings.length === 0, detail: result.detail });
    findings.push(...result.findings.map((finding) => ({ check: check.name, ...finding })));
  }
  return { path: store.path, healthy: findings.length === 0, checks, findings };
}
