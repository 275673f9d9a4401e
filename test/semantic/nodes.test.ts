import { describe, expect, test } from "bun:test";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();

describe("upsertNode", () => {
  test("creates a node with defaults and reads it back", async () => {
    const gllam = await openTempGllam(dir);
    const result = gllam.upsertNode({ id: "caddy", name: "Caddy", type: "service", aliases: ["caddy server"] });
    expect(result.created).toBe(true);
    const node = gllam.getNode("caddy")!;
    expect(node).toMatchObject({ id: "caddy", scope: "default", name: "Caddy", type: "service", taxonomyPath: "/", isCategory: false });
    expect(node.aliases).toEqual(["caddy server"]);
    expect(gllam.getNode("nobody")).toBeUndefined();
    gllam.close();
  });

  test("an update changes only the fields it names and merges aliases", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "pg", name: "PostgreSQL", type: "database", aliases: ["postgres"], taxonomyPath: "/Infra/Databases" });
    const { created, node } = gllam.upsertNode({ id: "pg", name: "PostgreSQL", contextPrompt: "Primary database", aliases: ["pg"] });
    expect(created).toBe(false);
    expect(node).toMatchObject({ type: "database", taxonomyPath: "/Infra/Databases", contextPrompt: "Primary database" });
    expect(node.aliases).toEqual(["postgres", "pg"]);
    gllam.close();
  });

  test("changing the embedded text drops the stale vector; other changes keep it", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "redis", name: "Redis", type: "cache" });
    await gllam.storeNodeEmbedding("redis");
    const vectors = () => gllam.dbRO().query("SELECT count(*) AS n FROM semantic_embeddings").get();
    expect(gllam.upsertNode({ id: "redis", name: "Redis", taxonomyPath: "/Infra" }).embeddingStale).toBe(false);
    expect(vectors()).toEqual({ n: 1 });
    expect(gllam.upsertNode({ id: "redis", name: "Redis", contextPrompt: "In-memory cache" }).embeddingStale).toBe(true);
    expect(vectors()).toEqual({ n: 0 });
    gllam.close();
  });

  test.each([
    [{ id: "", name: "x" }, /id: must not be empty/],
    [{ id: "x", name: "   " }, /name: must not be empty/],
    [{ id: "x", name: "x", taxonomyPath: "Engineering" }, /taxonomyPath: must start with \//],
  ])("refuses %j", async (input, message) => {
    const gllam = await openTempGllam(dir);
    await expectGllamError(() => gllam.upsertNode(input), "E_BAD_INPUT", message);
    gllam.close();
  });

  test("a node id belongs to one scope; another scope taking it learns nothing about the first", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "shared", name: "Shared", scope: "alice" });
    const error = await expectGllamError(() => gllam.upsertNode({ id: "shared", name: "Shared", scope: "bob" }), "E_CONFLICT", /"shared" is taken/);
    expect(error.message).not.toContain("alice");
    expect(gllam.getNode("shared", { scope: "bob" })).toBeUndefined();
    expect(gllam.getNode("shared", { scope: "alice" })?.name).toBe("Shared");
    gllam.close();
  });

  test.each([
    ["default", "team/x", /ids in the default scope have none/],
    ["alice", "bob/payroll", /ids of scope "alice" with one read "alice\/slug"/],
    ["alice", "alice/a/b", /ids of scope "alice"/],
  ])("in scope %s, a new id %s may not enter another scope's ids", async (scope, id, message) => {
    const gllam = await openTempGllam(dir);
    await expectGllamError(() => gllam.upsertNode({ id, name: "X", scope }), "E_BAD_INPUT", message);
    gllam.close();
  });

  test("a new id of the node's own scope is accepted", async () => {
    const gllam = await openTempGllam(dir);
    expect(gllam.upsertNode({ id: "alice/payroll", name: "Payroll", scope: "alice" }).created).toBe(true);
    gllam.close();
  });
});

describe("findNodesByName", () => {
  test("matches id, name or alias, case-insensitively, within the scope", async () => {
    const gllam = await openTempGllam(dir);
    gllam.upsertNode({ id: "pg", name: "PostgreSQL", aliases: ["Postgres"] });
    gllam.upsertNode({ id: "other-pg", name: "PostgreSQL", scope: "other" });
    expect(gllam.findNodesByName("postgresql").map((n) => n.id)).toEqual(["pg"]);
    expect(gllam.findNodesByName("POSTGRES").map((n) => n.id)).toEqual(["pg"]);
    expect(gllam.findNodesByName("pg").map((n) => n.id)).toEqual(["pg"]);
    expect(gllam.findNodesByName("postgresql", "other").map((n) => n.id)).toEqual(["other-pg"]);
    expect(gllam.findNodesByName("mysql")).toEqual([]);
    gllam.close();
  });
});
