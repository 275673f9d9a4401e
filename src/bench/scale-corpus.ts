/**
 * The scale benchmark's corpus: real conversations (ingest units from a dataset file) replicated
 * into as many turns as wanted, each copy with its own session ids, speakers, dates and a share of
 * words swapped for other words of the corpus, so the copies are distinct episodes (distinct
 * content hashes) and BM25's term statistics look like a large real memory, not one conversation
 * repeated. Pure and seeded: the same arguments give the same turns.
 */
import type { IngestUnit } from "../episodic/formats/source.ts";
import type { EpisodeInput } from "../memory/types.ts";
import { seededRandom } from "./random.ts";

/** Speaker names the copies take (a copy renames each original speaker to one of these). */
const NAMES = [
  "Aaron", "Beatriz", "Chen", "Dalia", "Emeka", "Farah", "Goran", "Hana", "Ibrahim", "Jun", "Kasia", "Luis", "Mei", "Nadia", "Oscar",
  "Priya", "Quentin", "Rosa", "Sami", "Tomas", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zara", "Anneke", "Bruno", "Carmen", "Dmitri",
  "Elif", "Felix", "Greta", "Hugo", "Ines", "Jonas", "Keiko", "Leon", "Marta", "Nico", "Olga", "Pablo", "Rania", "Sven", "Tariq", "Vera",
];

/** Share of the corpus's words a copy swaps for another word of the corpus. */
const SWAP_SHARE = 0.15;
/** Days between one copy's dates and the next's. */
const SHIFT_DAYS = 7;
const WORD = /\p{L}{4,}/gu;

export type ScaleTurn = EpisodeInput & { metadata: { doc: string; copy: number } };

export type ScaleCorpus = {
  /** Turns in one copy of the source. */
  turnsPerCopy: number;
  /** The units of copy `c` (copy 0 is the source as is, but for its doc keys). */
  copy(c: number): IngestUnit[];
};

/** A turn's document key: its unit and its position there (LoCoMo's dia_id when present), the same in every copy. */
export const docKeyOf = (unitKey: string, episode: EpisodeInput, index: number) => `${unitKey}:${String(episode.metadata?.dia_id ?? index)}`;

export function buildScaleCorpus(units: IngestUnit[], seed = 1): ScaleCorpus {
  const vocabulary = [...new Set(units.flatMap((unit) => unit.episodes.flatMap((e) => e.content.toLowerCase().match(WORD) ?? [])))].sort();
  const speakers = [...new Set(units.flatMap((unit) => unit.episodes.map((e) => e.speaker ?? "")).filter(Boolean))];
  return {
    turnsPerCopy: units.reduce((n, unit) => n + unit.episodes.length, 0),
    copy(c) {
      const random = seededRandom(seed * 1_000_003 + c);
      const swaps = new Map<string, string>();
      if (c > 0) for (const word of vocabulary) if (random.next() < SWAP_SHARE) swaps.set(word, random.pick(vocabulary)!);
      const renames = new Map(speakers.map((name) => [name, c === 0 ? name : NAMES[random.int(NAMES.length)]!]));
      const shift = c * SHIFT_DAYS * 86_400_000;
      const rewrite = (text: string) =>
        text
          .replace(WORD, (word) => {
            const swapped = swaps.get(word.toLowerCase());
            return swapped === undefined ? word : word[0] === word[0]!.toUpperCase() ? swapped[0]!.toUpperCase() + swapped.slice(1) : swapped;
          })
          .replace(/\p{L}+/gu, (word) => renames.get(word) ?? word);
      const session = (id: string) => (c === 0 ? id : `${id}~${c}`);
      const later = <T>(time: T) => (typeof time === "number" ? time + shift : time);
      return units.map((unit) => ({
        key: c === 0 ? unit.key : `${unit.key}~${c}`,
        sessions: unit.sessions.map((s) => ({ ...s, id: session(s.id), startedAt: later(s.startedAt) })),
        episodes: unit.episodes.map((e, i): ScaleTurn => ({
          ...e,
          sessionId: session(e.sessionId),
          speaker: e.speaker ? renames.get(e.speaker) : e.speaker,
          content: c === 0 ? e.content : rewrite(e.content),
          occurredAt: later(e.occurredAt),
          metadata: { doc: docKeyOf(unit.key, e, i), copy: c },
        })),
      }));
    },
  };
}

/** The units of the turns [from, to) of the replicated corpus, in order (whole units, cut at the ends). */
export function corpusSlice(corpus: ScaleCorpus, from: number, to: number): IngestUnit[] {
  const out: IngestUnit[] = [];
  for (let c = Math.floor(from / corpus.turnsPerCopy); c * corpus.turnsPerCopy < to; c++) {
    let at = c * corpus.turnsPerCopy;
    for (const unit of corpus.copy(c)) {
      const start = Math.max(from - at, 0);
      const end = Math.min(to - at, unit.episodes.length);
      if (end > start) out.push({ ...unit, episodes: unit.episodes.slice(start, end) });
      at += unit.episodes.length;
    }
  }
  return out;
}
