import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { EPISODE_WEIGHTS } from "../../src/router/episodes.ts";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { forEachWord } from "../../src/embed/static/words.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";
import { ensureTestStaticTable } from "../static-table.ts";

// A question that names its evidence by category ("countries") shares no word with the turn that
// holds it ("Spain"); among many turns that do share its words, only the round with the words
// nearest "countries" in the static space brings that turn in.
let gllam: Gllam;
const places = ["office", "garage", "kitchen", "library", "station", "bakery", "studio", "market", "harbour", "clinic", "school", "museum", "theatre", "gallery", "stadium", "factory", "warehouse", "hospital", "cafe", "barn", "cottage", "workshop", "pharmacy", "bank", "church"];
const chores = ["painted", "cleaned", "measured", "repaired", "photographed", "inspected", "decorated", "organised"];

const SPAIN = "Last summer I spent two weeks in Spain and loved the food.";
const QUESTION = "Which countries has Ann visited?";
// A word the table does not know ("mentorship") has no neighbours; the known word it starts with stands in.
const MENTOR = "Bo mentored me through my first year at the paper.";
const MENTOR_QUESTION = "Who gave Ann mentorship?";

beforeAll(async () => {
  // The test table's 2,000 words, and these texts' words (the shipped table has 30,000).
  const words = new Set(["france", "italy", "germany", "europe", "nations", "mentor"]);
  for (const text of [SPAIN, QUESTION, ...places, ...chores]) forEachWord(text, (word) => words.add(word.toLowerCase()));
  gllam = await openTempGllam(makeTempDir(), { staticEmbedder: loadStaticEmbedder(await ensureTestStaticTable(words)) });
  const turns = [];
  let day = Date.parse("2023-01-01");
  for (const [i, place] of places.entries()) {
    for (const [j, chore] of chores.entries()) {
      day += 86_400_000;
      turns.push({ sessionId: `s${i}`, speaker: j % 2 ? "Bo" : "Ann", content: `Ann visited the ${place} again and ${chore} the shelves with Bo.`, occurredAt: day });
    }
  }
  turns.push({ sessionId: "s9", speaker: "Ann", content: SPAIN, occurredAt: day + 86_400_000 });
  turns.push({ sessionId: "s10", speaker: "Ann", content: MENTOR, occurredAt: day + 2 * 86_400_000 });
  gllam.remember(turns);
});
afterAll(() => gllam.close());

const holds = async (question: string, text: string) => (await gllam.routeAndAssemble(question, { budget: 3000 })).markdown.includes(text);
const holdsSpain = (question: string) => holds(question, "Spain");

describe("the near-word round", () => {
  test("a category question finds a turn that names only a member of the category", async () => {
    expect(await holdsSpain(QUESTION)).toBe(true);
  });

  test("without the round the turn is not in the context (the test above is the round's doing)", async () => {
    const saved = EPISODE_WEIGHTS.nearWords;
    EPISODE_WEIGHTS.nearWords = 0;
    try {
      expect(await holdsSpain(QUESTION)).toBe(false);
    } finally {
      EPISODE_WEIGHTS.nearWords = saved;
    }
  });
});

test("a query word the static table does not know is stood in for by the known word it starts or ends with", async () => {
  expect(await holds(MENTOR_QUESTION, "mentored me")).toBe(true);
});
