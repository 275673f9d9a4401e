/**
 * The lexicon's terms by number: a block's inversion counts a turn's terms in arrays indexed by
 * term number instead of maps keyed by string (the maps were ~60% of a block's inversion), and the
 * embed-ahead worker tokenises a chunk's turns on the second core (the rest of it), sending their
 * terms as numbers in one transferred buffer. Its numbers are its own: the writer's thread
 * translates them to its numbering (TermTranslation), insertEpisodes keeps them by the ids the turns
 * got (keepTurnTerms), and a block made later reads them instead of tokenising its turns again.
 */
import { lexiconTerms } from "./terms.ts";

/** A numbering starts over past this many terms (a vocabulary grows with names and numbers). */
const MAX_TERMS = 200_000;

/** Terms numbered in the order first met. */
export class TermNumbers {
  private readonly numbers = new Map<string, number>();
  readonly terms: string[] = [];
  /** Changes when the numbering starts over: numbers given before mean nothing since. */
  generation = 0;

  numberOf(term: string): number {
    let number = this.numbers.get(term);
    if (number === undefined) {
      number = this.terms.length;
      this.numbers.set(term, number);
      this.terms.push(term);
    }
    return number;
  }

  /** A text's terms (lexiconTerms: in order, repeats kept) as numbers. */
  numbersOf(text: string): Int32Array {
    const terms = lexiconTerms(text);
    const numbers = new Int32Array(terms.length);
    for (let i = 0; i < terms.length; i++) numbers[i] = this.numberOf(terms[i]!);
    return numbers;
  }

  /** Starts over when full (or when `force`d); true when it did. */
  trim(force = false): boolean {
    if (!force && this.terms.length < MAX_TERMS) return false;
    this.numbers.clear();
    this.terms.length = 0;
    this.generation++;
    return true;
  }
}

/** Texts' terms as numbers of one numbering: text i's are numbers[offsets[i] .. offsets[i + 1]). */
export type NumberedTexts = {
  numbers: Int32Array;
  offsets: Int32Array;
  /** The numbering's terms added by this batch, numbered from `from` (its size before the batch). */
  added: string[];
  from: number;
  /** The numbering started over before this batch. */
  restarted: boolean;
};

/** Numbers the texts' terms (the worker's side), the numbering started over first when asked (`restart`) or full. */
export function numberTexts(numbering: TermNumbers, texts: string[], restart = false): NumberedTexts {
  const restarted = numbering.trim(restart);
  const before = numbering.terms.length;
  const parts = texts.map((text) => numbering.numbersOf(text));
  const offsets = new Int32Array(texts.length + 1);
  parts.forEach((part, i) => (offsets[i + 1] = offsets[i]! + part.length));
  const numbers = new Int32Array(offsets[texts.length]!);
  parts.forEach((part, i) => numbers.set(part, offsets[i]!));
  return { numbers, offsets, added: numbering.terms.slice(before), from: before, restarted };
}

/** The writer thread's numbering: the one block inversions count in. */
export const writerTerms = new TermNumbers();

// The numbers (writerTerms's) of turns written lately, by episode id, with the text they are the
// terms of: a turn's block is made a write or two after the turn, from the turn as read back, whose
// text must be the same (an id of a rolled-back write may be given again to another turn). Two
// maps, the older dropped when the newer fills: a block's turns are those of the last chunk or two.
type TurnTerms = { text: string; numbers: Int32Array };
const KNOWN_PER_MAP = 16_384;
let known = new Map<number, TurnTerms>();
let older = new Map<number, TurnTerms>();
let knownGeneration = writerTerms.generation;
let used = 0;
let tokenised = 0;

/** A turn's terms as writerTerms numbers: a worker's when they were kept for this id and text, else tokenised here. */
export function termNumbersOf(id: number | null, text: string): Int32Array {
  if (knownGeneration !== writerTerms.generation) forgetKnownTerms();
  const kept = id === null ? undefined : (known.get(id) ?? older.get(id));
  if (kept?.text === text) {
    used++;
    return kept.numbers;
  }
  tokenised++;
  return writerTerms.numbersOf(text);
}

/** Turns whose numbers came from a worker and were used (tests: the worker's path was taken). */
export const knownTermsUsed = () => used;
/** Texts tokenised on this thread (their garbage is what build.ts collects). */
export const textsTokenisedHere = () => tokenised;

/** Drops every turn's numbers (tests: the writer's own path; a numbering that started over). */
export function forgetKnownTerms(): void {
  known = new Map();
  older = new Map();
  knownGeneration = writerTerms.generation;
}

/** Texts' terms as writerTerms numbers, one array per text, valid while the numbering's generation is this one. */
export type TurnNumbers = { generation: number; numbers: Int32Array[] };

/** Keeps the numbers of turns just written (their ids and texts), numbered by a worker (TermTranslation.translate). */
export function keepTurnTerms(turns: { id: number; content: string }[], terms: TurnNumbers): void {
  if (terms.generation !== writerTerms.generation) return;
  if (knownGeneration !== writerTerms.generation) forgetKnownTerms();
  turns.forEach((turn, i) => {
    if (known.size >= KNOWN_PER_MAP) {
      older = known;
      known = new Map();
    }
    known.set(turn.id, { text: turn.content, numbers: terms.numbers[i]! });
  });
}

/**
 * A worker's numbering seen from the writer's thread: its terms, and their writerTerms numbers. A
 * batch it did not see (a reply refused or lost) leaves it without terms the worker has numbered:
 * it refuses every batch then (`lost`) until the worker's numbering starts over (embed-ahead asks).
 */
export class TermTranslation {
  private terms: string[] = [];
  private toWriter = new Int32Array(1024).fill(-1);
  private generation = writerTerms.generation;
  /** A batch was missed: the worker must start its numbering over before any batch is translated. */
  lost = false;

  /**
   * The batch's numbers translated to writerTerms's, per text (kept by keepTurnTerms once the texts
   * are written and have ids); undefined when they do not fit the texts or a batch was missed.
   */
  translate(texts: string[], batch: NumberedTexts): TurnNumbers | undefined {
    if (batch.restarted) {
      this.terms = [];
      this.toWriter.fill(-1);
      this.lost = false;
    }
    if (this.lost || batch.from !== this.terms.length) {
      this.lost = true;
      return undefined;
    }
    this.terms.push(...batch.added);
    if (batch.offsets.length !== texts.length + 1 || batch.offsets[texts.length] !== batch.numbers.length) return undefined;
    if (this.generation !== writerTerms.generation) {
      this.toWriter.fill(-1);
      this.generation = writerTerms.generation;
    }
    if (this.toWriter.length < this.terms.length) {
      const grown = new Int32Array(Math.max(this.terms.length, this.toWriter.length * 2)).fill(-1);
      grown.set(this.toWriter);
      this.toWriter = grown;
    }
    const { numbers, offsets } = batch;
    for (let i = 0; i < numbers.length; i++) {
      const theirs = numbers[i]!;
      if (theirs < 0 || theirs >= this.terms.length) return undefined;
      let ours = this.toWriter[theirs]!;
      if (ours < 0) ours = this.toWriter[theirs] = writerTerms.numberOf(this.terms[theirs]!);
      numbers[i] = ours;
    }
    return { generation: writerTerms.generation, numbers: Array.from(texts, (_, i) => numbers.subarray(offsets[i]!, offsets[i + 1]!)) };
  }
}
