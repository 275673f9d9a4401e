import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTempDir, openTempGllam } from "../helpers.ts";
import { layerOn } from "../llm/stub-layer.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";

let stub: StubServer;
beforeAll(async () => {
  stub = await startStubServer();
});
afterAll(() => stub.stop());

test("entities resolve against existing nodes by name, alias and a close static vector of the same type before any is created", async () => {
  const gllam = await openTempGllam(makeTempDir(), {
    llm: layerOn(stub.url),
  });
  gllam.upsertNode({ id: "support", name: "LGBTQ support group", type: "group" });
  gllam.upsertNode({ id: "mel", name: "Melanie", type: "person", aliases: ["Mel"] });
  gllam.upsertNode({ id: "place-2", name: "Place 2", type: "place" });
  gllam.addEpisodes([{ sessionId: "s1", seq: 0, speaker: "Caroline", content: "Mel and I went to the support group (LGBTQ), then to Place 3.", occurredAt: Date.UTC(2023, 4, 8) }]);
  const entities = [
    { name: "support group (LGBTQ)", type: "group" },
    { name: "Mel", type: "person" },
    { name: "Place 3", type: "place" },
    { name: "Caroline", type: "person" },
  ];
  const facts = [
    { subject: "Caroline", relationship: "attends", object: "support group (LGBTQ)", turns: [1] },
    { subject: "Caroline", relationship: "knows", object: "Mel", turns: [1] },
    { subject: "Caroline", relationship: "visited", object: "Place 3", turns: [1] },
  ];
  stub.setScript({ rules: [{ reply: { json: { entities, facts } } }] });
  const report = await gllam.extract();
  expect(report.extracted).toBe(1);
  const targets = Object.fromEntries(report.outcomes[0]!.facts.map((f) => [f.relationship, gllam.db().query<{ t: string }, [number]>("SELECT target_id AS t FROM semantic_links WHERE id = ?").get(f.linkId)!.t]));
  expect(targets.attends).toBe("support"); // a close static vector, same type
  expect(targets.knows).toBe("mel"); // an alias
  expect(targets.visited).not.toBe("place-2"); // close vectors, but another number
  expect(report.nodes).toBe(2); // Caroline and Place 3
  gllam.close();
});
