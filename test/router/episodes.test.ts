import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { EPISODE_WEIGHTS, gatherEpisodes } from "../../src/router/episodes.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

let gllam: Gllam;
let ids: number[];

beforeAll(async () => {
  gllam = await openTempGllam(makeTempDir());
  const turns: [string, string][] = [
    ["Ann", "I named the new boat Zorblat last weekend."],
    ["Bo", "Nice name!"],
    ["Ann", "It sails fast on the lake, we went out with the kids."],
    ["Bo", "Sounds fun."],
    ["Ann", "Anyway, how is work going?"],
  ];
  gllam.remember(turns.map(([speaker, content], i) => ({ sessionId: "s1", speaker, content, occurredAt: Date.parse("2023-05-08") + i })));
  ids = gllam.getRecentEpisodes(10).map((e) => e.id).sort((a, b) => a - b);
});
afterAll(() => gllam.close());

const options = { scope: "default", windows: [], maxChars: 600, excerptChars: 300, compactChars: 120, unmatchedChars: 80, recap: false, multiHop: false };

describe("gatherEpisodes' neighbours", () => {
  // The same speaker goes on after the other's reply: the turn two away from a strong hit is worth a share of it (lexical alone, so nothing else brings it in).
  test("the turn two away from the strongest hit is worth its share of the hit", async () => {
    const { items } = await gatherEpisodes(gllam.store, {}, "What is Zorblat?", options);
    const valueOf = (id: number) => items.find((item) => item.episodeId === id)?.value;
    const hit = valueOf(ids[0]!)!;
    expect(hit).toBeGreaterThan(0);
    expect(valueOf(ids[2]!)).toBeGreaterThanOrEqual(hit * EPISODE_WEIGHTS.farNeighbourShare);
  });
});
