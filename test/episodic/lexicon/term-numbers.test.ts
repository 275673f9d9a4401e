import { describe, expect, test } from "bun:test";
import { invertNumbered, invertTurns, type IndexedRow } from "../../../src/episodic/lexicon/build.ts";
import { forgetKnownTerms, keepTurnTerms, knownTermsUsed, numberTexts, TermNumbers, TermTranslation, termNumbersOf, writerTerms } from "../../../src/episodic/lexicon/term-numbers.ts";
import { lexiconTerms } from "../../../src/episodic/lexicon/terms.ts";

const TEXTS = ["Hiking by the lake at sunrise", "The lake, the LAKE and the kids", "Café crème, naïve résumé", "", "guitar concerts 2024 and 2025"];
const termsOf = (numbers: Int32Array) => Array.from(numbers, (n) => writerTerms.terms[n]);
const turns = (texts: string[], from: number) => texts.map((content, i) => ({ id: from + i, content }));

describe("lexicon terms by number", () => {
  test("a worker's numbering, translated to the writer's and kept by id, gives each turn its terms, and the writer then tokenises nothing", () => {
    forgetKnownTerms();
    const worker = new TermNumbers();
    const translation = new TermTranslation();
    // Two batches: the second names terms the first added only by number.
    keepTurnTerms(turns(TEXTS.slice(0, 3), 1), translation.translate(TEXTS.slice(0, 3), numberTexts(worker, TEXTS.slice(0, 3)))!);
    keepTurnTerms(turns(TEXTS.slice(3), 4), translation.translate(TEXTS.slice(3), numberTexts(worker, TEXTS.slice(3)))!);
    const used = knownTermsUsed();
    TEXTS.forEach((text, i) => expect(termsOf(termNumbersOf(i + 1, text))).toEqual(lexiconTerms(text)));
    expect(knownTermsUsed() - used).toBe(TEXTS.length);
    // Another text under a kept id (a rolled-back write's id given again), or no id: tokenised here.
    expect(termsOf(termNumbersOf(1, "pottery painted"))).toEqual(lexiconTerms("pottery painted"));
    expect(termsOf(termNumbersOf(null, TEXTS[0]!))).toEqual(lexiconTerms(TEXTS[0]!));
    expect(knownTermsUsed() - used).toBe(TEXTS.length);
  });

  test("numbers that do not fit their texts are refused", () => {
    const translation = new TermTranslation();
    expect(translation.translate(TEXTS.slice(1), numberTexts(new TermNumbers(), TEXTS))).toBeUndefined();
    const beyond = numberTexts(new TermNumbers(), ["one two"]);
    beyond.numbers[1] = 99;
    expect(translation.translate(["one two"], beyond)).toBeUndefined();
  });

  test("a batch the writer's thread did not see stops the translation until the worker's numbering starts over", () => {
    forgetKnownTerms();
    const worker = new TermNumbers();
    const translation = new TermTranslation();
    expect(translation.translate(["lake kids"], numberTexts(worker, ["lake kids"]))).toBeDefined();
    // A reply lost: its new terms ("pottery") were never seen here.
    numberTexts(worker, ["pottery lake"]);
    expect(translation.translate(["pottery kids"], numberTexts(worker, ["pottery kids"]))).toBeUndefined();
    expect(translation.lost).toBe(true);
    expect(translation.translate(["kids"], numberTexts(worker, ["kids"]))).toBeUndefined();
    // Started over (embed-ahead asks with restartTerms): every term is named again.
    const texts = ["pottery kids", "sunrise lake"];
    const numbers = translation.translate(texts, numberTexts(worker, texts, true))!;
    expect(translation.lost).toBe(false);
    expect(numbers.numbers.map(termsOf)).toEqual(texts.map(lexiconTerms));
  });

  test("turns inverted from a worker's numbers have the postings of turns tokenised here", () => {
    const rows: IndexedRow[] = TEXTS.map((content, i) => ({ id: 10 + i * 3, content, context: i > 0 ? TEXTS[i - 1]! : "", speaker: i % 2 ? "Ann Lee" : "Bo", previousId: i > 0 ? 10 + (i - 1) * 3 : null }));
    forgetKnownTerms();
    const here = invertTurns(rows);
    keepTurnTerms(rows, new TermTranslation().translate(TEXTS, numberTexts(new TermNumbers(), TEXTS))!);
    const used = knownTermsUsed();
    expect(invertTurns(rows)).toEqual(here);
    expect(knownTermsUsed() - used).toBe(TEXTS.length);
    // Per turn (id, said, in the turn before, terms of turn + turn before + speaker): one posting
    // for a term both said and heard before, and one for a turn that only heard it.
    expect(here.byTerm.get("lake")).toEqual([10, 1, 0, 6 + 0 + 1, 13, 2, 1, 7 + 6 + 2, 16, 0, 2, 4 + 7 + 1]);
    const { terms, starts, flat } = invertNumbered(rows);
    expect(starts[terms.length]).toBe(flat.length);
  });
});
