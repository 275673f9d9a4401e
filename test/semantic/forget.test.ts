import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { formatRecallMarkdown } from "../../src/retrieval/format.ts";
import { expectGllamError } from "../helpers.ts";
import { count, useGraphs } from "./fixtures.ts";

const graph = useGraphs();

/** An episode from a source, mentioning nodes, with a vector and its full-text row. */
function addEpisode(gllam: Gllam, sourceId: string | null, content: string, mentions: string[]): number {
  const db = gllam.db();
  db.run("INSERT OR IGNORE INTO sessions (id, created_at) VALUES ('s1', 0)");
  const { id } = db
    .query<{ id: number }, [string, string | null, string]>(
      "INSERT INTO episodes (session_id, seq, content, source_id, content_hash, created_at) VALUES ('s1', 0, ?, ?, ?, 0) RETURNING id",
    )
    .get(content, sourceId, Bun.hash(content).toString())!;
  for (const node of mentions) db.run("INSERT INTO episode_mentions (episode_id, node_id) VALUES (?, ?)", [id, node]);
  db.run("INSERT INTO episode_vectors (episode_id, scope, embedding) VALUES (?, 'default', ?)", [id, new Float32Array([1, 2, 3, 4])]);
  return id;
}

const fts = (gllam: Gllam, word: string) => count(gllam, "episodes_fts", `episodes_fts MATCH '${word}'`);

describe("forget", () => {
  test("a source: its episodes (with full-text and vector rows), mentions, claims only it made, and its node; shared claims are re-attributed", async () => {
    const gllam = await graph(["caddy", "tailscale", "host"]);
    await gllam.storeNodeEmbeddings(["caddy", "tailscale", "host"]);
    const dave = gllam.attributeContainerEntryToSource("slack", "dave", "Dave", "Caddy binds to tailscale.");
    const erin = gllam.attributeContainerEntryToSource("slack", "erin", "Erin", "Caddy runs on the host.");
    const episode = addEpisode(gllam, dave.sourceId, "zebraword caddy binds to tailscale", ["caddy"]);
    addEpisode(gllam, erin.sourceId, "caddy runs on host", ["caddy"]);
    const only = gllam.addEdge({ sourceId: "caddy", targetId: "tailscale", relationship: "binds_to", originSourceId: dave.sourceId, episodeId: episode });
    const shared = gllam.addEdge({ sourceId: "caddy", targetId: "host", relationship: "runs_on", originSourceId: dave.sourceId });
    gllam.addEdge({ sourceId: "caddy", targetId: "host", relationship: "runs_on", originSourceId: erin.sourceId });
    expect(fts(gllam, "zebraword")).toBe(1);

    const report = gllam.forget({ source: dave.sourceId });
    expect(report.removed).toMatchObject({ sources: [dave.sourceId], episodes: [episode], links: [only.linkId], nodes: [dave.sourceId], episodeVectors: 1, mentions: 1 });
    expect(report.reattributed).toEqual([shared.linkId]);
    expect(fts(gllam, "zebraword")).toBe(0);
    expect(count(gllam, "episode_vectors")).toBe(1);
    expect(count(gllam, "episodes")).toBe(1);
    expect(count(gllam, "semantic_node_names", `node_id = '${dave.sourceId}'`)).toBe(0);
    expect(gllam.activeLinks("caddy").find((l) => l.id === shared.linkId)).toMatchObject({ originSourceId: erin.sourceId, evidenceCount: 1 });
    expect(count(gllam, "semantic_embeddings")).toBe(3);
    gllam.close();
  });

  test("a node: its links, names, vector and mentions, and the fallacy nodes derived from its claims", async () => {
    const gllam = await graph(["caddy", "server"]);
    await gllam.storeNodeEmbeddings(["caddy", "server"]);
    addEpisode(gllam, null, "caddy crashed the server", ["caddy", "server"]);
    const claim = gllam.addEdge({ sourceId: "caddy", targetId: "server", relationship: "causes", claim: "We deployed Caddy, then the server rebooted, so Caddy crashed it" });
    const report = gllam.forget({ node: "caddy" });
    expect(report.removed.nodes).toEqual(["caddy", `fallacy:${claim.linkId}:post_hoc`]);
    expect(report.removed.links).toHaveLength(2); // the claim and its flags_fallacy link
    // caddy's model and static vectors and the fallacy node's static one; both nodes' name keys
    expect(report.removed).toMatchObject({ nodeVectors: 3, mentions: 1, nameKeys: 2 });
    expect(count(gllam, "semantic_links")).toBe(0);
    expect(count(gllam, "semantic_nodes")).toBe(1);
    expect(count(gllam, "episodes")).toBe(1); // the episode mentions other nodes: not derived only from caddy
    gllam.close();
  });

  test("a node's disambiguation senses are named after it: they go with it", async () => {
    const gllam = await graph(["service", "host"]);
    const sense = gllam.disambiguateEntityForSource("service", "systemd unit");
    gllam.addEdge({ sourceId: sense.nodeId, targetId: "host", relationship: "runs_on" });
    const report = gllam.forget({ node: "service" });
    expect(report.removed.nodes).toEqual(["service", sense.nodeId]);
    expect(count(gllam, "semantic_nodes")).toBe(1);
    expect(count(gllam, "node_static_vectors")).toBe(1);
    gllam.close();
  });

  test("a link that superseded another: the loser is believed again, the resolution link goes", async () => {
    const gllam = await graph(["t", "open", "done"]);
    const weak = gllam.addEdge({ sourceId: "t", targetId: "open", relationship: "has_state", trustWeight: 100 }, { now: 1000 });
    const strong = gllam.addEdge({ sourceId: "t", targetId: "done", relationship: "has_state", trustWeight: 900 }, { now: 2000 });
    const report = gllam.forget({ link: strong.linkId });
    expect(report.restored).toEqual([weak.linkId]);
    expect(report.removed.links).toHaveLength(2);
    expect(gllam.activeLinks("t", { asOf: 3000 }).map((l) => [l.targetId, l.validUntil, l.endReason])).toEqual([["open", null, null]]);
    gllam.close();
  });

  test("a source by its handle when one source of the scope has it; a shared handle lists the candidates", async () => {
    const gllam = await graph(["a"]);
    const carol = gllam.attributeContainerEntryToSource("jira_resolved", "carol_lead", "Carol", "Fixed.").sourceId;
    gllam.attributeContainerEntryToSource("slack", "erin", "Erin", "Hi.");
    gllam.attributeContainerEntryToSource("jira_open", "erin", "Erin", "Open.");
    gllam.attributeContainerEntryToSource("slack", "carol_lead", "Carol", "Elsewhere.", undefined, { scope: "other" });
    const error = await expectGllamError(() => gllam.forget({ source: "erin" }), "E_BAD_INPUT", /handle "erin" names 2 sources/);
    expect(error.message).toContain("source:jira_open:erin, source:slack:erin");
    await expectGllamError(() => gllam.forget({ source: "dave" }), "E_NOT_FOUND", /no source dave/);
    expect(gllam.forget({ source: "Carol_Lead" }).removed.sources).toEqual([carol]);
    expect(count(gllam, "sources", "handle = 'carol_lead'")).toBe(1); // the other scope's
    gllam.close();
  });

  test("a hub's caveat summary is recomputed without the forgotten node's caveats, and recall no longer prints them", async () => {
    const gllam = await graph(["hub", "quixotrel:Quixotrel", ...["a", "b", "c", "d"]]);
    for (const other of ["a", "b", "c", "d"]) gllam.addEdge({ sourceId: "hub", targetId: other, relationship: "feeds", caveats: `${other} needs care` });
    gllam.addEdge({ sourceId: "quixotrel", targetId: "hub", relationship: "feeds", caveats: "never before zebrafoil", trustWeight: 100 });
    gllam.compactNodeCaveats("hub", 2);
    expect(gllam.getNode("hub")!.caveatSummary).toContain("zebrafoil");

    const report = gllam.forget({ node: "quixotrel" });
    expect(report.recompacted).toEqual(["hub"]);
    const hub = gllam.getNode("hub")!;
    expect(hub.caveatSummary).not.toMatch(/zebrafoil|Quixotrel/);
    expect(hub.caveatSummary).toContain("2 more caveats");
    const printed = formatRecallMarkdown(await gllam.recall("hub", { entities: ["hub"] }));
    expect(printed).toContain("Caveat summary:");
    expect(printed).not.toMatch(/zebrafoil|quixotrel/i);
    gllam.close();
  });

  test("no copy of forgotten text stays in the file or its WAL", async () => {
    const gllam = await graph(["hub", "a", "b", "c"]);
    /** Case-insensitive occurrences of a word in the database file and its WAL. */
    const copies = (word: string) =>
      [gllam.path, `${gllam.path}-wal`]
        .filter(existsSync)
        .reduce((n, file) => n + readFileSync(file).toString("latin1").toLowerCase().split(word).length - 1, 0);
    gllam.upsertNode({ id: "quixotrel", name: "Quixotrel", contextPrompt: "the Quixotrel project" });
    for (const other of ["a", "b", "c"]) gllam.addEdge({ sourceId: "hub", targetId: other, relationship: "feeds", caveats: `${other} needs care` });
    gllam.addEdge({ sourceId: "hub", targetId: "quixotrel", relationship: "feeds", caveats: "never before zebrafoil" });
    gllam.compactNodeCaveats("hub", 1);
    const source = gllam.attributeContainerEntryToSource("slack", "mira", "Mira", "hi").sourceId;
    gllam.addEpisodes(Array.from({ length: 400 }, (_, seq) => ({ sessionId: "s", seq, content: `turn ${seq} about the weather and money` })));
    gllam.addEpisodes([{ sessionId: "s", seq: 400, content: "the xylophaguswort code is 4471", sourceId: source }]);
    gllam.addEpisodes([{ sessionId: "s", seq: 401, content: "noted" }]);
    gllam.checkpointWAL("TRUNCATE");
    gllam.addEpisodes([{ sessionId: "t", seq: 0, content: "later talk of xylophaguswort", sourceId: source }]);
    for (const word of ["quixotrel", "zebrafoil", "xylophaguswort"]) expect(copies(word)).toBeGreaterThan(0);

    expect(gllam.forget({ node: "quixotrel" }).walPurged).toBe(true);
    gllam.forget({ source });
    for (const word of ["quixotrel", "zebrafoil", "xylophaguswort"]) expect(copies(word)).toBe(0);
    expect(gllam.dbRO().query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    gllam.close();
  });

  test("unknown targets are refused", async () => {
    const gllam = await graph(["a"]);
    await expectGllamError(() => gllam.forget({ link: 99 }), "E_NOT_FOUND", /no link 99/);
    await expectGllamError(() => gllam.forget({ node: "zz" }), "E_NOT_FOUND", /no node zz/);
    await expectGllamError(() => gllam.forget({ source: "zz" }), "E_NOT_FOUND", /no source zz/);
    await expectGllamError(() => gllam.forget({ episode: 7 }), "E_NOT_FOUND", /no episode 7/);
    await expectGllamError(() => gllam.forget({ episode: 0 }), "E_BAD_INPUT", /invalid forget target/);
    gllam.close();
  });
});
