import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderFromSpec } from "../../src/embed/spec.ts";
import type { GllamErrorCode } from "../../src/engine/errors.ts";
import { SCHEMA_VERSION } from "../../src/engine/schema.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";
import { buildRichMemory } from "./rich-memory.ts";

const dir = makeTempDir();
const hash = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder.ts") });
const hashV2 = await createEmbedderFromSpec({ kind: "module", path: join(import.meta.dir, "../fixtures/hash-embedder-v2.ts") });

const open = (options = {}) => openTempGllam(dir, { embedder: hash, ...options });

function exported(gllam: Gllam, options: { scope?: string; withVectors?: boolean } = {}): string {
  const parts: string[] = [];
  gllam.exportMemory((text) => parts.push(text), options);
  return parts.join("");
}

function saved(text: string): string {
  const file = join(dir, `export-${Bun.hash(text).toString(36)}-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, text);
  return file;
}

/** Rows of every memory table: an import that failed must have written none. */
const memoryRows = (gllam: Gllam) =>
  Object.entries(gllam.stats().tables)
    .filter(([table]) => table !== "system_metadata")
    .reduce((sum, [, n]) => sum + n, 0);

let rich: Gllam;
let full: string;

beforeAll(async () => {
  rich = await open();
  await buildRichMemory(rich, dir);
  await rich.storeNodeEmbeddings(rich.db().query<{ id: string }, []>("SELECT id FROM semantic_nodes WHERE scope = 'default' LIMIT 5").all().map((row) => row.id));
  full = exported(rich);
});

describe("export", () => {
  test("a header, then every table of every scope, metadata of contradictions, fallacies and compaction included", () => {
    const lines = full.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ record: "header", format: "gllam-export", version: 1, schema: SCHEMA_VERSION, scope: null, models: null });
    expect(lines[0].generator).toMatch(/^gllam \d/);
    const records = new Set(lines.map((line) => line.record));
    for (const record of ["node", "source", "link", "link_event", "session", "episode", "mention", "summary", "extraction", "procedure", "procedure_version"]) expect(records).toContain(record);
    const nodes = lines.filter((line) => line.record === "node");
    expect(nodes.find((node) => node.type === "contradiction").metadata).toMatchObject({ status: "resolved" });
    expect(nodes.find((node) => node.type === "fallacy").metadata).toMatchObject({ kind: "post_hoc" });
    expect(nodes.find((node) => node.id === "caddy").metadata.caveatCompaction.inlineLinkIds).toHaveLength(2);
    expect(nodes.find((node) => node.id === "services")).toMatchObject({ is_category: 1, taxonomy_path: "/Infrastructure/Services" });
    expect(lines.some((line) => line.record === "link" && line.scope === "work")).toBe(true);
    // Forgotten things are not exported; the sequence remembers the newest forgotten episode.
    expect(full).not.toContain("it holds a secret");
    const episodes = lines.filter((line) => line.record === "episode");
    expect(lines[0].episode_sequence).toBeGreaterThan(Math.max(...episodes.map((e) => e.id)));
    // Each table in its key's order.
    expect(episodes.map((e) => e.id)).toEqual(episodes.map((e) => e.id).toSorted((a, b) => a - b));
  });

  test("streamed: each record reaches the writer on its own, as it is read", () => {
    const writes: string[] = [];
    const report = rich.exportMemory((text) => writes.push(text));
    expect(writes).toHaveLength(report.lines);
    for (const text of writes) expect(text.indexOf("\n")).toBe(text.length - 1);
  });

  test("one scope: only its rows", () => {
    const work = exported(rich, { scope: "work" });
    const lines = work.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(lines[0].scope).toBe("work");
    expect(lines.slice(1).every((line) => line.scope === "work" || line.record === "mention" || line.record === "link_event")).toBe(true);
    expect(lines.filter((line) => line.record === "link")).toHaveLength(1);
  });
});

describe("export -> import -> export", () => {
  test("byte-identical; the static tier is computed at import, the model tier queued", async () => {
    const target = await open();
    const report = await target.importMemory(saved(full));
    expect(report.scopes.toSorted()).toEqual(["default", "work"]);
    expect(report.staticVectors).toBe(report.records.episode!);
    expect(report.queued).toBeGreaterThan(0);
    expect(exported(target)).toBe(full);
    // The memory answers as the original does.
    expect(target.facts("caddy").facts.map((f) => [f.relationship, f.otherName])).toEqual(rich.facts("caddy").facts.map((f) => [f.relationship, f.otherName]));
    expect(target.findNearMissNodes("Kaddy").map((n) => n.id)).toEqual(["caddy"]);
    expect((await target.searchEpisodes("Tailscale FQDN")).hits[0]?.content).toContain("Tailscale FQDN");
    // A new episode never takes the id of one forgotten before the export.
    const sequence = JSON.parse(full.slice(0, full.indexOf("\n"))).episode_sequence;
    expect(target.remember([{ sessionId: "later", content: "A new turn." }]).ids[0]).toBe(sequence + 1);
    target.close();
  });

  test("--with-vectors: the stored vectors are carried, byte for byte, and nothing waits for them", async () => {
    const withVectors = exported(rich, { withVectors: true });
    const header = JSON.parse(withVectors.slice(0, withVectors.indexOf("\n")));
    expect(header.models).toEqual({ model: { version: "hash-16@test", dims: 16 }, static: { version: rich.staticEmbedder!.modelVersion, dims: rich.staticEmbedder!.dims } });
    const target = await open();
    const report = await target.importMemory(saved(withVectors), { withVectors: true });
    expect(report.carriedVectors).toBe(withVectors.split('"record":"vector"').length - 1);
    expect(report.staticVectors).toBe(0);
    expect(exported(target, { withVectors: true })).toBe(withVectors);
    expect(target.stats().tables.semantic_embeddings).toBe(rich.stats().tables.semantic_embeddings);
    target.close();
  });

  test("one scope into a database holding another scope; the same scope again is refused", async () => {
    const target = await open();
    target.addFact({ subject: "Router", relationship: "located_in", object: "Hall" });
    const work = saved(exported(rich, { scope: "work" }));
    expect((await target.importMemory(work)).scopes).toEqual(["work"]);
    expect(exported(target, { scope: "work" })).toBe(exported(rich, { scope: "work" }));
    await expectGllamError(target.importMemory(work), "E_CONFLICT", /:2: scope work already holds memory in .*\(semantic_nodes\); an import fills only scopes that are empty there/);
    target.close();
  });

  test("an id the database already holds (in another scope) is refused, naming the line", async () => {
    const target = await open();
    const ids = rich.db().query<{ id: number }, []>("SELECT id FROM semantic_links WHERE scope = 'work'").get()!.id;
    for (let i = 0; i < ids; i++) target.addFact({ subject: `Thing ${i}`, relationship: "near", object: "Hall", allowNew: true });
    await expectGllamError(target.importMemory(saved(exported(rich, { scope: "work" }))), "E_CONFLICT", /export-.*\.jsonl:\d+: link \d+ is already in .*\(UNIQUE constraint failed: semantic_links\.id\); an import keeps every id/);
    target.close();
  });
});

test("an export from schema version 1 (the same tables; 2 changed an index) imports as one of this version", async () => {
  const [header, ...rest] = full.split("\n");
  const target = await open();
  await target.importMemory(saved([JSON.stringify({ ...JSON.parse(header!), schema: 1 }), ...rest].join("\n")));
  expect(exported(target)).toBe(full);
  target.close();
});

describe("a bad file writes nothing and names file:line", () => {
  const header = () => full.slice(0, full.indexOf("\n"));
  const line = (n: number) => full.split("\n")[n - 1]!;
  const node = () => JSON.parse(full.split("\n").find((l) => l.includes('"record":"node"'))!);
  const tamper = (n: number, edit: (record: Record<string, unknown>) => unknown) =>
    full
      .split("\n")
      .map((text, i) => (i === n - 1 ? JSON.stringify(edit(JSON.parse(text))) : text))
      .join("\n");
  const firstLink = () => full.split("\n").findIndex((l) => l.includes('"record":"link"')) + 1;

  test.each<[string, () => string, GllamErrorCode, RegExp]>([
    ["invalid JSON on a line", () => full.replace(line(3), `${line(3).slice(0, 20)}`), "E_BAD_INPUT", /:3: invalid JSON/],
    ["a field missing", () => tamper(2, ({ name: _, ...rest }) => rest), "E_BAD_INPUT", /:2: invalid node: name: /],
    ["a field of the wrong kind", () => tamper(2, (r) => ({ ...r, created_at: "yesterday" })), "E_BAD_INPUT", /:2: invalid node: created_at: /],
    ["aliases that are not a list", () => tamper(2, (r) => ({ ...r, aliases: { a: 1 } })), "E_BAD_INPUT", /:2: invalid node: aliases: /],
    ["a field no table has", () => tamper(2, (r) => ({ ...r, colour: "blue" })), "E_BAD_INPUT", /:2: invalid node: colour: /],
    ["an unknown record", () => tamper(2, (r) => ({ ...r, record: "gadget" })), "E_BAD_INPUT", /:2: unknown record "gadget"/],
    ["no header", () => full.slice(full.indexOf("\n") + 1), "E_BAD_INPUT", /:1: not the header of a gllam export: record: /],
    ["another format", () => tamper(1, (r) => ({ ...r, format: "other" })), "E_BAD_INPUT", /:1: not the header of a gllam export: format: must be "gllam-export"/],
    ["a row of another scope than the export's", () => tamper(1, (r) => ({ ...r, scope: "work" })), "E_BAD_INPUT", /:2: a row of scope default in an export of scope work/],
    ["a link to a node of another scope", () => tamper(firstLink(), (r) => ({ ...r, target_id: "work/laptop" })), "E_BAD_INPUT", /link .* of scope default points at semantic_nodes work\/laptop of scope work/],
    ["a link to a node nowhere", () => tamper(firstLink(), (r) => ({ ...r, target_id: "ghost" })), "E_BAD_INPUT", /semantic_links row \d+ points at a missing semantic_nodes row/],
    ["an event of a link not in the file", () => tamper(full.split("\n").findIndex((l) => l.includes('"record":"link_event"')) + 1, (r) => ({ ...r, link_id: 99999 })), "E_BAD_INPUT", /link_event points at semantic_links 99999, which is not in this file before it/],
    ["a CHECK the table makes", () => tamper(firstLink(), (r) => ({ ...r, trust_weight: 5 })), "E_BAD_INPUT", /:\d+: link \d+: CHECK constraint failed/],
    ["the same node twice", () => `${full.trimEnd()}\n${JSON.stringify(node())}\n`, "E_CONFLICT", /:\d+: node [\w-]+ is already in/],
    ["an empty file", () => "", "E_BAD_INPUT", /: empty: not a gllam export/],
    ["a newer schema version", () => tamper(1, (r) => ({ ...r, schema: SCHEMA_VERSION + 1 })), "E_BAD_INPUT", /:1: exported from a database of schema version \d+; this one has \d+/],
    ["--with-vectors without vectors in the file", () => header(), "E_BAD_INPUT", /:1: the file carries no vectors/],
  ])("%s", async (_name, content, code, message) => {
    const target = await open();
    await expectGllamError(target.importMemory(saved(content()), { withVectors: _name.startsWith("--with-vectors") }), code, message);
    expect(memoryRows(target)).toBe(0);
    target.close();
  });

  test("vectors of another model are refused with --with-vectors (E_EMBEDDING_DRIFT), taken as recomputed without it", async () => {
    const file = saved(exported(rich, { withVectors: true }));
    const other = await open({ embedder: hashV2 });
    await expectGllamError(other.importMemory(file, { withVectors: true }), "E_EMBEDDING_DRIFT", /:1: the file's model-tier vectors come from hash-16@test, the active model tier is hash-8@test-v2/);
    expect(memoryRows(other)).toBe(0);
    const report = await other.importMemory(file);
    expect(report.ignoredVectors).toBeGreaterThan(0);
    expect(report.staticVectors).toBe(report.records.episode!);
    other.close();
  });
});
