import { beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { estimateTokens } from "../../src/router/budget.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

let gllam: Gllam;
const at = (iso: string) => Date.parse(iso);

beforeAll(async () => {
  gllam = await openTempGllam(makeTempDir());
  for (const [id, name, type] of [
    ["ann", "Ann", "person"],
    ["bo", "Bo", "person"],
    ["trip", "Lisbon trip", "event"],
    ["wedding", "Wedding", "event"],
    ["db", "Main DB", "entity"],
    ["pg15", "PostgreSQL 15", "entity"],
    ["pg16", "PostgreSQL 16", "entity"],
  ] as const) {
    gllam.upsertNode({ id, name, type });
  }
  gllam.addEdge({ sourceId: "trip", targetId: "wedding", relationship: "happened_before" });
  gllam.addEdge({ sourceId: "ann", targetId: "wedding", relationship: "attended" });
  gllam.addEdge({ sourceId: "bo", targetId: "wedding", relationship: "spoke_at" });
  gllam.addEdge({ sourceId: "db", targetId: "pg15", relationship: "version_is", trustWeight: 600 });
  gllam.addEdge({ sourceId: "db", targetId: "pg16", relationship: "version_is", trustWeight: 600 });
  gllam.upsertProceduralKnowledge({ taskType: "install_caddy", recipe: "apt install caddy", pddlAction: { name: "install-caddy", effects: ["(installed caddy)"] } });
  gllam.upsertProceduralKnowledge({
    taskType: "deploy_caddy",
    recipe: "bind caddy to the Tailscale FQDN and reload",
    pddlAction: { name: "deploy-caddy", preconditions: ["(installed caddy)"], effects: ["(deployed caddy)"] },
  });
  const turn = (sessionId: string, speaker: string, content: string, day: string) => ({ sessionId, speaker, content, occurredAt: at(day) });
  gllam.remember([
    turn("s1", "Ann", "I booked the Lisbon trip for June, flights are cheap.", "2023-05-08"),
    turn("s1", "Bo", "Nice, I will bring my old camera along.", "2023-05-08"),
    turn("s1", "Ann", "Great, we can photograph the tiles.", "2023-05-08"),
    turn("s2", "Ann", "The wedding was lovely and Bo gave a funny speech.", "2023-08-10"),
    turn("s2", "Bo", "Thanks! Next I want to learn pottery.", "2023-08-10"),
    turn("s2", "Ann", "Pottery sounds relaxing, I tried it once.", "2023-08-10"),
  ]);
  gllam.relinkMentions();
  return () => gllam.close();
});

const episodeIdsOf = (markdown: string) => [...markdown.matchAll(/\[e(\d+)(?: excerpt)?\]/g)].map((m) => Number(m[1]));

describe("routeAndAssemble", () => {
  test("a temporal query resolves its date against the conversation and prefers episodes in the window", async () => {
    const context = await gllam.routeAndAssemble("What did Ann plan last May?");
    expect(context.intent.intents).toContain("temporal");
    expect(context.dateWindows.map((w) => [w.expression, new Date(w.start).toISOString().slice(0, 10)])).toEqual([["last may", "2023-05-01"]]);
    const first = context.items.find((item) => item.section === "episodes")!;
    expect(context.markdown).toContain("### 2023-05-08\n");
    expect(context.markdown).toMatch(new RegExp(`\\[e${first.episodeId}\\] Ann: I booked the Lisbon trip`));
  });

  test("a span before an event is dated by the turn that names it", async () => {
    const context = await gllam.routeAndAssemble("What did Bo say two months before the wedding speech?");
    const windows = context.dateWindows.map((w) => [w.expression, new Date(w.start).toISOString().slice(0, 10), new Date(w.end - 1).toISOString().slice(0, 10)]);
    expect(windows).toEqual([["two months before the wedding speech", "2023-06-01", "2023-06-30"]]);
  });

  test("asOf leaves out what happened after it", async () => {
    const context = await gllam.routeAndAssemble("pottery and the wedding speech", { asOf: at("2023-06-01") });
    expect(context.markdown).not.toContain("session s2");
  });

  test("how do I: the matching recipes, and the chain the planner builds, with versions", async () => {
    const context = await gllam.routeAndAssemble("How do I deploy caddy?");
    expect(context.intent.intents).toEqual(["procedural"]);
    expect(context.markdown).toContain("## Procedures\n");
    expect(context.markdown).toContain("[procedure deploy_caddy v1]");
    const chain = context.markdown.split("## Recipe chain\n")[1]!.split("\n").filter((line) => /^\d+\./.test(line));
    expect(chain).toEqual([
      expect.stringMatching(/^1\. \(install-caddy\): apt install caddy \[procedure install_caddy v1\]$/),
      expect.stringMatching(/^2\. \(deploy-caddy\): bind caddy .* \[procedure deploy_caddy v1\]$/),
    ]);
  });

  test("is it true that: the open contradiction comes first, with the facts it joins", async () => {
    const context = await gllam.routeAndAssemble("Is it true that Main DB runs PostgreSQL 16?");
    expect(context.intent.intents).toContain("verification");
    const sections = [...context.markdown.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(sections[0]).toBe("Open contradictions");
    expect(context.markdown).toMatch(/- ⚠ .* \[contradiction contradiction:\d+:\d+; links \d+, \d+\]/);
    expect(context.markdown).toMatch(/Main DB \*\*version_is\*\* PostgreSQL 15 .*\[link \d+\]/);
  });

  test("how is X related to Y: the path between them, cited by link", async () => {
    const context = await gllam.routeAndAssemble("How is Ann related to Bo?");
    expect(context.intent.intents).toContain("relation");
    expect(context.markdown).toMatch(/## Paths between the entities\n- Ann -attended-> Wedding <-spoke_at- Bo \[links \d+, \d+\]/);
  });

  test("which came first: the timeline's answer through the planner, with the link that forces it", async () => {
    const context = await gllam.routeAndAssemble("Did the Lisbon trip happen before the Wedding?");
    expect(context.markdown).toMatch(/## Timeline\n- Lisbon trip came first: .* \(ordered by native \(lazy-gbfs, eliminate\)\) \[links \d+\]/);
  });

  test("the budget holds, every episode line is cited, no line repeats", async () => {
    for (const budget of [100, 200, 400, 3000]) {
      const context = await gllam.routeAndAssemble("Ann Bo wedding trip pottery camera", { budget });
      expect(context.tokens).toBe(estimateTokens(context.markdown));
      expect(context.tokens).toBeLessThanOrEqual(budget);
      const lines = context.markdown.split("\n").filter((line) => line.startsWith("- ") || line.startsWith("[e") || /^\d+\. /.test(line));
      expect(new Set(lines).size).toBe(lines.length);
      for (const line of lines) expect(line).toMatch(/\[(e\d+(?: excerpt)?|link \d+|links [\d, ]+|contradiction .*|procedure .*|node .*)\]/);
      // An episode line's day is that of the heading above it: every one sits under a day heading.
      let heading = "";
      for (const line of context.markdown.split("\n")) {
        if (line.startsWith("#")) heading = line;
        if (/^\[e\d+/.test(line)) expect(heading).toMatch(/^### \d{4}-\d{2}-\d{2}$/);
      }
      expect(new Set(episodeIdsOf(context.markdown)).size).toBe(context.items.filter((item) => item.section === "episodes").length);
    }
  });

  test("an empty memory says so", async () => {
    const context = await gllam.routeAndAssemble("anything at all", { scope: "empty" });
    expect(context.markdown).toContain("_Nothing in memory matches this query._");
    expect(context.items).toEqual([]);
  });

  test.each([
    ["", {}, /query is empty/],
    ["x", { budget: 10 }, /budget must be an integer in 100\.\.200000/],
    ["x", { budget: 150.5 }, /budget must be an integer/],
  ])("refuses %j %j", async (query, options, message) => {
    await expectGllamError(gllam.routeAndAssemble(query, options), "E_BAD_INPUT", message);
  });
});
