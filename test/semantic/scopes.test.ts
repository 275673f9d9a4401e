import { describe, expect, test } from "bun:test";
import { GllamError } from "../../src/engine/errors.ts";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { nodeIdFor } from "../../src/semantic/ids.ts";
import { ACTIVE_LINKS_SQL } from "../../src/semantic/links.ts";
import { NEIGHBOUR_SQL } from "../../src/semantic/paths.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";
import { snapshot, tinyEmbedder } from "./fixtures.ts";

const dir = makeTempDir("gllam-scopes-");

describe("nodeIdFor (pure)", () => {
  test("one id per (scope, slug): the default scope's are bare, others' are scope/slug", () => {
    const scopes = ["default", "secret", "public", "a b", "Ünïcode", "default2"];
    const slugs = ["payroll", "secret", "default", "payroll~finance", "source:slack:carol", "contradiction:1:2", "category:Eng:Web"];
    const ids = scopes.flatMap((scope) => slugs.map((slug) => nodeIdFor(scope, slug)));
    expect(new Set(ids).size).toBe(ids.length);
    expect(nodeIdFor("default", "payroll")).toBe("payroll");
    expect(nodeIdFor("secret", "payroll")).toBe("secret/payroll");
  });

  test.each(["", "a/b"])("refuses the slug %j", (slug) => {
    expect(() => nodeIdFor("secret", slug)).toThrow(GllamError);
  });
});

type Tenant = { payroll: string; workday: string; link: number };
type Tenants = { gllam: Gllam; secret: Tenant & { ledger: string; source: string; contradiction: string; episode: number }; public: Tenant };

/** Two tenants who use the same names; the secret one has more (a ledger, a source, an episode, a contradiction). */
async function twoTenants(): Promise<Tenants> {
  const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
  const tenant = (scope: string, caveat: string): Tenant => {
    const payroll = gllam.ensureNodeNamed("Payroll", { scope }).node.id;
    const workday = gllam.ensureNodeNamed("Workday", { scope }).node.id;
    const link = gllam.addEdge({ scope, sourceId: payroll, targetId: workday, relationship: "depends_on", caveats: caveat }).linkId;
    return { payroll, workday, link };
  };
  const secret = tenant("secret", "classified detail");
  const pub = tenant("public", "open detail");
  const ledger = gllam.ensureNodeNamed("Salary Ledger", { scope: "secret" }).node.id;
  gllam.addEdge({ scope: "secret", sourceId: ledger, targetId: secret.payroll, relationship: "feeds", caveats: "classified feed" });
  const source = gllam.attributeContainerEntryToSource("slack", "carol", "Carol", "Payroll moved to Workday last week.", undefined, { scope: "secret" }).sourceId;
  const [green, red] = ["Green", "Red"].map((state) => gllam.ensureNodeNamed(state, { scope: "secret" }).node.id);
  gllam.addEdge({ scope: "secret", sourceId: secret.payroll, targetId: green!, relationship: "has_state" });
  const contradiction = gllam.addEdge({ scope: "secret", sourceId: secret.payroll, targetId: red!, relationship: "has_state" }).contradictionId!;
  const episode = gllam.addEpisodes([{ scope: "secret", sessionId: "s1", seq: 0, content: "Payroll runs on Workday" }]).ids[0]!;
  await gllam.storeNodeEmbeddings([secret.payroll, secret.workday, ledger], { scope: "secret" });
  await gllam.storeNodeEmbeddings([pub.payroll, pub.workday], { scope: "public" });
  return { gllam, secret: { ...secret, ledger, source, contradiction, episode }, public: pub };
}

const failure = async (action: () => unknown): Promise<{ code: string; message: string }> => {
  try {
    await action();
  } catch (error) {
    if (error instanceof GllamError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a failure");
};

test.each([
  ["activeLinks", ACTIVE_LINKS_SQL],
  ["the path search's neighbours", NEIGHBOUR_SQL(true)],
])("%s: the scope filters, the source and target indexes find the links", async (_, sql) => {
  const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
  const plan = gllam.dbRO().query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${sql}`).all().map((row) => row.detail).join("\n");
  expect(plan).toContain("idx_semantic_links_source (source_id=?)");
  expect(plan).toContain("idx_semantic_links_target (target_id=?)");
  expect(plan).not.toMatch(/\(scope=\?\)/); // a walk over every link of the scope
  gllam.close();
});

describe("two tenants with the same names", () => {
  test("both record Payroll uses Workday; each sees only its own nodes and links", async () => {
    const { gllam, secret, public: pub } = await twoTenants();
    expect([secret.payroll, pub.payroll, pub.workday]).toEqual(["secret/payroll", "public/payroll", "public/workday"]);
    expect(gllam.resolveEntity("payroll", { scope: "public" }).node?.id).toBe(pub.payroll);
    expect(gllam.activeLinks(pub.payroll, { scope: "public" }).map((l) => l.id)).toEqual([pub.link]);
    expect(gllam.describeFacts(pub.payroll, { scope: "public" }).map((f) => f.caveats)).toEqual(["open detail"]);
    expect(gllam.findMultiHopPath(pub.payroll, pub.workday, { scope: "public" })).toMatchObject({ found: true, hops: 1 });
    expect(gllam.findMultiHopPath(secret.ledger, secret.workday, { scope: "secret" })).toMatchObject({ found: true, hops: 2 });
    gllam.close();
  });

  test("public's recall and similar nodes show nothing of secret's: no id, name, caveat or count", async () => {
    const { gllam } = await twoTenants();
    const recalled = JSON.stringify(await gllam.recall("salary ledger payroll workday", { scope: "public", entities: ["Payroll"] }));
    const similar = JSON.stringify(await gllam.searchSimilarNodes("salary ledger", 10, { scope: "public" }));
    for (const text of [recalled, similar]) {
      expect(text).toContain("public/");
      for (const secretWord of ["secret", "Salary", "classified", "carol", "Green"]) expect(text).not.toContain(secretWord);
    }
    expect(gllam.getNodesByTaxonomyPrefix("/", { scope: "public" }).map((n) => n.id).toSorted()).toEqual(["public/payroll", "public/workday"]);
    gllam.close();
  });

  test("a library caller's explicit id taken by the other scope is E_CONFLICT, naming nothing of it", async () => {
    const { gllam, secret } = await twoTenants();
    expect(gllam.upsertNode({ id: "ledger", name: "Ledger", scope: "secret" }).created).toBe(true);
    const conflict = await failure(() => gllam.upsertNode({ id: "ledger", name: "Ledger", scope: "public" }));
    expect(conflict).toEqual({ code: "E_CONFLICT", message: 'node id "ledger" is taken: choose another id' });
    for (const squat of [
      await failure(() => gllam.upsertNode({ id: secret.ledger, name: "Ledger", scope: "public" })),
      await failure(() => gllam.upsertSource({ id: secret.source, docType: "slack", scope: "public" })),
    ]) {
      expect(squat.code).toBe("E_CONFLICT");
      expect(squat.message).not.toMatch(/scope|Salary|Carol/);
    }
    gllam.close();
  });

  // Each call names something of the secret tenant from the public one: it must fail exactly as
  // for an id nobody holds (same code, same words), and write nothing.
  const ghostNode = "public/ghost";
  const crossScope: [string, (t: Tenants, id: string) => unknown, (t: Tenants) => string, string][] = [
    ["findMultiHopPath", ({ gllam, public: p }, id) => gllam.findMultiHopPath(p.payroll, id, { scope: "public" }), (t) => t.secret.workday, ghostNode],
    ["mergeNodes", ({ gllam, public: p }, id) => gllam.mergeNodes(p.payroll, id, { scope: "public" }), (t) => t.secret.ledger, ghostNode],
    ["forget node", ({ gllam }, id) => gllam.forget({ node: id, scope: "public" }), (t) => t.secret.payroll, ghostNode],
    ["forget source", ({ gllam }, id) => gllam.forget({ source: id, scope: "public" }), (t) => t.secret.source, "public/source:slack:nobody"],
    ["cascading invalidation", ({ gllam }, id) => gllam.invalidateDependentCrossCuttingLinks(id, Date.now(), { scope: "public" }), (t) => t.secret.workday, ghostNode],
    ["compactNodeCaveats", ({ gllam }, id) => gllam.compactNodeCaveats(id, 1, { scope: "public" }), (t) => t.secret.payroll, ghostNode],
    ["addEdge to a node", ({ gllam, public: p }, id) => gllam.addEdge({ scope: "public", sourceId: p.payroll, targetId: id, relationship: "uses" }), (t) => t.secret.ledger, ghostNode],
    ["addEdge from a node", ({ gllam, public: p }, id) => gllam.addEdge({ scope: "public", sourceId: id, targetId: p.workday, relationship: "uses" }), (t) => t.secret.ledger, ghostNode],
    [
      "addEdge with an origin source",
      ({ gllam, public: p }, id) => gllam.addEdge({ scope: "public", sourceId: p.payroll, targetId: p.workday, relationship: "uses", originSourceId: id }),
      (t) => t.secret.source,
      "public/source:slack:nobody",
    ],
    ["resolveContradiction", ({ gllam }, id) => gllam.resolveContradiction(id, 1, { scope: "public" }), (t) => t.secret.contradiction, "public/contradiction:1:2"],
    ["disambiguateEntityForSource", ({ gllam }, id) => gllam.disambiguateEntityForSource(id, "finance", undefined, { scope: "public" }), (t) => t.secret.payroll, ghostNode],
    ["storeNodeEmbeddings", ({ gllam }, id) => gllam.storeNodeEmbeddings([id], { scope: "public" }), (t) => t.secret.ledger, ghostNode],
  ];

  test.each(crossScope)("%s: another scope's id fails as a missing one and writes nothing", async (_, call, secretId, ghost) => {
    const tenants = await twoTenants();
    const id = secretId(tenants);
    const before = snapshot(tenants.gllam);
    const crossed = await failure(() => call(tenants, id));
    const missing = await failure(() => call(tenants, ghost));
    expect(crossed.code).toBe("E_NOT_FOUND");
    expect(crossed.message.replaceAll(id, "ID")).toBe(missing.message.replaceAll(ghost, "ID"));
    expect(snapshot(tenants.gllam)).toEqual(before);
    tenants.gllam.close();
  });

  const crossLinks: [string, (t: Tenants, id: number) => unknown][] = [
    ["invalidateObsoleteEdge", ({ gllam }, id) => gllam.invalidateObsoleteEdge(id, Date.now(), { scope: "public" })],
    ["forget link", ({ gllam }, id) => gllam.forget({ link: id, scope: "public" })],
    ["addEdge with a provenance episode", ({ gllam, public: p }, id) => gllam.addEdge({ scope: "public", sourceId: p.payroll, targetId: p.workday, relationship: "uses", episodeId: id })],
  ];

  test.each(crossLinks)("%s: another scope's link or episode fails as a missing one", async (name, call) => {
    const tenants = await twoTenants();
    const id = name.includes("episode") ? tenants.secret.episode : tenants.secret.link;
    const crossed = await failure(() => call(tenants, id));
    const missing = await failure(() => call(tenants, 99_999));
    expect(crossed.code).toBe("E_NOT_FOUND");
    expect(crossed.message.replace(String(id), "N")).toBe(missing.message.replace("99999", "N"));
    tenants.gllam.close();
  });

  test("reads of another scope's node find nothing, as for a missing one", async () => {
    const { gllam, secret } = await twoTenants();
    const now = Date.now();
    expect(gllam.getNode(secret.payroll, { scope: "public" })).toBeUndefined();
    expect(gllam.activeLinks(secret.payroll, { scope: "public" })).toEqual([]);
    expect(gllam.describeFacts(secret.payroll, { scope: "public" })).toEqual([]);
    expect(gllam.asKnownAt(secret.payroll, { knownAt: now, scope: "public" })).toEqual([]);
    expect(gllam.linkHistory(secret.payroll, "depends_on", { scope: "public" })).toEqual([]);
    expect(gllam.resolveEntity(secret.payroll, { scope: "public" }).node).toBeUndefined();
    expect(gllam.findNearMissNodes("Salary Ledgr", { scope: "public" })).toEqual([]);
    expect(gllam.findNearMissNodes("Salary Ledgr", { scope: "secret" }).map((n) => n.id)).toEqual([secret.ledger]);
    gllam.close();
  });
});

describe("ensureNodeNamed", () => {
  test("finds the node a name means (id, name or alias, even one written in the same transaction), else creates one with a free derived id", async () => {
    const gllam = await openTempGllam(dir, { embedder: tinyEmbedder });
    gllam.upsertNode({ id: "kaddy", name: "Something Else" });
    gllam.upsertNode({ id: "pg", name: "PostgreSQL", aliases: ["Postgres"] });
    expect(gllam.ensureNodeNamed("pg").node.id).toBe("pg");
    expect(gllam.ensureNodeNamed("postgres")).toMatchObject({ node: { id: "pg" }, created: false });
    const [first, second] = gllam.store.transaction(() => [gllam.ensureNodeNamed("Kaddy"), gllam.ensureNodeNamed("KADDY")]);
    expect(first).toMatchObject({ node: { id: "kaddy#2", name: "Kaddy" }, created: true });
    expect(second).toMatchObject({ node: { id: "kaddy#2" }, created: false });
    expect(gllam.getNode("kaddy")?.name).toBe("Something Else");
    await expectGllamError(() => gllam.ensureNodeNamed("!!!"), "E_BAD_INPUT", /no letters or digits/);
    gllam.close();
  });
});
