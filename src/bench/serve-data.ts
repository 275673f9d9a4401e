/**
 * The synthetic memory `gllam bench serve` recalls from: N turns in sessions of 20, each 8-20 words
 * drawn Zipf-like from the English word list (so BM25 and the vectors meet common and rare words as
 * in conversation), with their static vectors. Model vectors, when asked for, are random unit
 * vectors stored as the bundled model's: the model's search cost over N vectors is the same, and
 * embedding 100K turns first would take most of an hour (only the timing matters here).
 */
import wordListText from "../../assets/wordlist/en-subtlex-us-30k.txt" with { type: "text" };
import { createLocalModelEmbedder } from "../embed/local-model.ts";
import { parseWordList } from "../embed/static/table.ts";
import { episodeVectorQueue } from "../episodic/vectors.ts";
import { Gllam } from "../gllam/gllam.ts";
import { seededRandom } from "./random.ts";

const VOCABULARY = 5000;
const SESSION_TURNS = 20;
const BATCH = 5000;

type Random = ReturnType<typeof seededRandom>;

/** A word of the first VOCABULARY, frequent words far more often (rank ~ 1/u²). */
function zipfWord(words: readonly string[], random: Random): string {
  const u = random.next();
  return words[Math.min(VOCABULARY - 1, Math.floor(u * u * u * VOCABULARY))]!;
}

export function synthText(words: readonly string[], random: Random, min: number, max: number): string {
  const length = min + random.int(max - min + 1);
  return Array.from({ length }, () => zipfWord(words, random)).join(" ");
}

export const benchWords = () => parseWordList(wordListText);

/** Adds `count` turns after the `from` already there, with static vectors, 5,000 a transaction. */
export function addSyntheticTurns(gllam: Gllam, from: number, count: number, seed: number): void {
  const words = benchWords();
  const random = seededRandom(seed + from);
  for (let start = from; start < from + count; start += BATCH) {
    const end = Math.min(from + count, start + BATCH);
    gllam.addEpisodes(
      Array.from({ length: end - start }, (_, k) => {
        const i = start + k;
        return {
          sessionId: `bench-${Math.floor(i / SESSION_TURNS)}`,
          seq: i % SESSION_TURNS,
          speaker: i % 2 === 0 ? "user" : "assistant",
          content: `${synthText(words, random, 8, 20)} (${i})`,
          occurredAt: Date.UTC(2024, 0, 1) + i * 60_000,
        };
      }),
    );
  }
}

/** Random unit vectors as the bundled model's vectors for every episode still without one. */
export function addRandomModelVectors(gllam: Gllam, seed: number): number {
  const model = createLocalModelEmbedder();
  const random = seededRandom(seed);
  const queue = episodeVectorQueue(gllam.store);
  let written = 0;
  for (let batch = queue.read(undefined, BATCH); batch.length > 0; batch = queue.read(batch.at(-1)!.key, BATCH)) {
    const vectors = batch.map(() => {
      const vector = Float32Array.from({ length: model.dims }, () => random.next() * 2 - 1);
      const norm = Math.hypot(...vector);
      return vector.map((x) => x / norm);
    });
    queue.write(model, batch, vectors);
    written += batch.length;
  }
  return written;
}
