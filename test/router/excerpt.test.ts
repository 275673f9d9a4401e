import { describe, expect, test } from "bun:test";
import { excerptFor, excerptsOf, queryScorer, splitSentences } from "../../src/router/excerpt.ts";

const long = [
  "Thanks for asking, the week was busy with the move and all the boxes everywhere.",
  "The kids started at their new school on Monday and they already love it.",
  "Oh, and I got promoted at work!",
  "I'm now the assistant manager of the whole store.",
  "Anyway, how was your trip to the coast with the dogs last weekend?",
].join(" ");

test("splitSentences cuts after . ! ? and keeps each sentence whole", () => {
  expect(splitSentences("One. Two!  Three?\nFour")).toEqual(["One.", "Two!", "Three?", "Four"]);
});

test("queryScorer counts the query's words a sentence has, a long word by its stem", () => {
  const score = queryScorer("When did John get promoted?");
  expect(score("John got a promotion.")).toBe(2); // john, promot(ed); "get" is not "got"; when/did are stop words
  expect(score("Nothing here.")).toBe(0);
});

describe("excerptFor", () => {
  test("text that fits is kept whole, not marked", () => {
    expect(excerptFor("Short turn.", queryScorer("turn"), 300)).toEqual({ text: "Short turn.", compacted: false });
  });

  test("a long turn keeps the matching sentence and the one after it, ellipses at the cuts", () => {
    const { text, compacted } = excerptFor(long, queryScorer("What was John promoted to?"), 120);
    expect(compacted).toBe(true);
    expect(text).toBe("… Oh, and I got promoted at work! I'm now the assistant manager of the whole store. …");
  });

  test("with no matching sentence it keeps the first, within the limit", () => {
    const { text } = excerptFor(long, queryScorer("favourite colour"), 100);
    expect(text.startsWith("Thanks for asking")).toBe(true);
    expect(text.length).toBeLessThanOrEqual(100);
  });

  test("a turn none of whose sentences has a query word is held to the shorter unmatched limit; a matching one is not", () => {
    const unmatched = excerptFor(long, queryScorer("favourite colour"), 120, 60);
    expect(unmatched.text.length).toBeLessThanOrEqual(60);
    expect(excerptFor(long, queryScorer("What was John promoted to?"), 120, 60).text).toBe("… Oh, and I got promoted at work! I'm now the assistant manager of the whole store. …");
    expect(excerptFor("Thanks, that sounds lovely!", queryScorer("favourite colour"), 120, 10)).toEqual({ text: "Thanks, th…", compacted: true });
  });

  test("one sentence longer than the limit is cut at a word", () => {
    const { text } = excerptFor(`${"word ".repeat(100)}end.`, queryScorer("end"), 50);
    expect(text.length).toBeLessThanOrEqual(50);
    expect(text.endsWith("…")).toBe(true);
  });
});

test("excerptsOf: one text at several lengths, each as excerptFor gives it", () => {
  const texts = [
    "Short turn.",
    "I went to the market.\nThen I painted the fence.   \n  It took all day! Did you get promoted? Yes, I'm the assistant manager now. We should celebrate soon.",
    `${"word ".repeat(100)}end.`,
    "Thanks, that sounds lovely!",
  ];
  const score = queryScorer("When did John get promoted at the market?");
  for (const text of texts) {
    const excerpt = excerptsOf(text, score);
    for (const [max, unmatched] of [[300, 300], [120, 60], [80, 80], [50, 120], [10, 10]] as const) expect(excerpt(max, unmatched)).toEqual(excerptFor(text, score, max, unmatched));
  }
});
