/**
 * What the model tier adds over the static one, on paraphrases written by hand: each query shares
 * no content word with its target turn, so BM25 cannot find it and a word-averaging embedder only
 * finds it through its words' own neighbours. The static table here holds the test's words, so its
 * vectors are those the full 512-dimension table gives (the shipped one keeps 256 of its directions).
 */
import { describe, expect, test } from "bun:test";
import { forEachWord } from "../../src/embed/static/words.ts";
import { loadStaticEmbedder } from "../../src/embed/static/bundled-table.ts";
import { queryTerms } from "../../src/retrieval/query-text.ts";
import { TIER_VARIANTS } from "../../src/bench/retrieval.ts";
import { ensureTestStaticTable } from "../static-table.ts";
import { localEmbedder, makeTempDir, openTempGllam } from "../helpers.ts";

const PAIRS: [turn: string, query: string][] = [
  ["I adopted a puppy last week, a golden retriever.", "Who got a new dog?"],
  ["My flight to Tokyo got cancelled because of the typhoon.", "Which trip was called off due to bad weather?"],
  ["I finally passed my driving test on the third attempt.", "When did she get her license?"],
  ["We are expecting a baby girl in March.", "Is anyone pregnant?"],
  ["I quit my job at the bank to start a bakery.", "Who left their employment to open a bread shop?"],
  ["My grandfather passed away in his sleep on Sunday.", "Did a relative die recently?"],
  ["The doctor told me my blood pressure is too high.", "What health problem did the physician find?"],
  ["We bought a small house near the lake.", "Where is their new home?"],
  ["I have been learning to play the violin since January.", "Which musical instrument is she studying?"],
  ["My laptop screen cracked when I dropped it.", "What computer was damaged?"],
];
const DISTRACTORS = [
  "The coffee at the corner cafe is great.", "I watched a movie with friends last night.", "Traffic was terrible this morning.",
  "Can you send me the spreadsheet later?", "My sister loves painting landscapes.", "We played board games until midnight.",
  "The garden needs watering every day in summer.", "I am reading a novel about pirates.", "The meeting moved to Thursday afternoon.",
  "He runs five miles before breakfast.", "Our team won the football match on Saturday.", "I forgot my umbrella at the office.",
  "The museum has a new exhibition of old maps.", "She is knitting a scarf for winter.", "The soup needs more salt.",
  "My neighbour plays loud music at night.", "We are planning a picnic in the park.", "The printer ran out of ink again.",
  "I like hiking in the mountains in autumn.", "The kids built a sandcastle at the beach.",
];

const words = new Set<string>();
for (const text of [...PAIRS.flat(), ...DISTRACTORS]) forEachWord(text, (word) => words.add(word.toLowerCase()));
const staticEmbedder = loadStaticEmbedder(await ensureTestStaticTable(words));
const dir = makeTempDir();

describe("paraphrases (no content word shared)", () => {
  test("the queries really share no content word with their turns", () => {
    for (const [turn, query] of PAIRS) expect(queryTerms(query).filter((term) => queryTerms(turn).includes(term))).toEqual([]);
  });

  test("the model tier ranks more of them near the top than the static tier", async () => {
    const gllam = await openTempGllam(dir, { embedder: localEmbedder, staticEmbedder });
    gllam.addEpisodes([...PAIRS.map(([turn]) => turn), ...DISTRACTORS].map((content, seq) => ({ sessionId: "s", seq, content })));
    while ((await gllam.processUnembeddedBatch(64)) > 0);
    const rankOf = async (variant: string) =>
      Promise.all(
        PAIRS.map(async ([turn, query]) => {
          const { hits } = await gllam.searchEpisodes(query, { k: 30, tuning: TIER_VARIANTS[variant] });
          return hits.findIndex((hit) => hit.content === turn) + 1 || Infinity;
        }),
      );
    const ranks = { static: await rankOf("static"), model: await rankOf("model"), bm25: await rankOf("bm25") };
    const within = (list: number[], k: number) => list.filter((rank) => rank <= k).length;
    console.log(`paraphrase ranks of ${PAIRS.length} targets among ${PAIRS.length + DISTRACTORS.length} turns:`, JSON.stringify(ranks));
    expect(within(ranks.bm25, 30)).toBe(0);
    expect(within(ranks.model, 3)).toBeGreaterThan(within(ranks.static, 3));
    expect(within(ranks.model, 1)).toBeGreaterThanOrEqual(within(ranks.static, 1));
    gllam.close();
  });
});
