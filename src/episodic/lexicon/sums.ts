/**
 * The running BM25 sums of the terms the lexicon's ranking scores in full (rank.ts): the episodes
 * scored so far, by slot (an episode's id less the scope's first) ascending, each with its sum.
 * Each term's run of parts (its postings' slots ascending, as recorded) is merged in, so memory is
 * read and written in order. A score per slot of the scope's id range (8 MB at 1M episodes) took a
 * cache miss per posting (~45 ns) and a second pass to zero it; the merge reads each sum once per
 * term. The parts are added term by term in the order the terms are scored, as before: the same
 * sums to the bit.
 */
import { cannotReach, kthLargest } from "./prune.ts";

type Buffer = { slots: Int32Array; scores: Float64Array };
const buffer = (length: number): Buffer => ({ slots: new Int32Array(length), scores: new Float64Array(length) });

/** The k-th best sum is taken among at most this many (evenly spaced) while terms are scored: any subset gives a k-th score no higher than all do. */
export const KTH_SAMPLE = 1 << 16;

export class RunningSums {
  /** Two buffers, reused across queries: a merge reads one and writes the other. */
  #buffers: [Buffer, Buffer] = [buffer(1 << 12), buffer(1 << 12)];
  #current = 0;
  /** Episodes scored so far. */
  count = 0;
  // The sums kth selects among (kthLargest rearranges them).
  #values = new Float64Array(1 << 12);
  /** The last k-th best taken among all the sums, until a term is added: the ranking asks for it again after the last term it scores in full. */
  #kthOfAll: { k: number; value: number } | undefined;

  /** Starts a query: nothing scored. */
  reset(): this {
    this.count = 0;
    return this;
  }

  /** The slots scored so far, ascending. */
  get slots(): Int32Array {
    return this.#buffers[this.#current]!.slots.subarray(0, this.count);
  }

  /** Their sums. */
  get scores(): Float64Array {
    return this.#buffers[this.#current]!.scores.subarray(0, this.count);
  }

  /** Adds a term's parts, `parts[i]` to slot `slots[i]` for i in [from, to) (slots ascending, each once). */
  add(slots: Int32Array, parts: Float64Array, from: number, to: number): void {
    const { slots: aSlots, scores: aScores } = this.#buffers[this.#current]!;
    const next = 1 - this.#current;
    const need = this.count + (to - from);
    if (this.#buffers[next]!.slots.length < need) this.#buffers[next] = buffer(Math.ceil(need * 1.5));
    const { slots: oSlots, scores: oScores } = this.#buffers[next]!;
    const count = this.count;
    let i = 0;
    let j = from;
    let n = 0;
    while (i < count && j < to) {
      const a = aSlots[i]!;
      const b = slots[j]!;
      if (a < b) {
        oSlots[n] = a;
        oScores[n++] = aScores[i++]!;
      } else if (b < a) {
        oSlots[n] = b;
        oScores[n++] = parts[j++]!;
      } else {
        oSlots[n] = a;
        oScores[n++] = aScores[i++]! + parts[j++]!;
      }
    }
    for (; i < count; i++, n++) {
      oSlots[n] = aSlots[i]!;
      oScores[n] = aScores[i]!;
    }
    for (; j < to; j++, n++) {
      oSlots[n] = slots[j]!;
      oScores[n] = parts[j]!;
    }
    this.#current = next;
    this.count = n;
    this.#kthOfAll = undefined;
  }

  /** The k-th best sum (among at most `sample` of them, evenly spaced); 0 while fewer than k are scored (nothing is left out then). */
  kth(k: number, sample = Infinity): number {
    const scores = this.scores;
    const step = scores.length > sample ? scores.length / sample : 1;
    const taken = Math.floor(scores.length / step);
    if (taken < k) return 0;
    if (step === 1 && this.#kthOfAll?.k === k) return this.#kthOfAll.value;
    if (this.#values.length < taken) this.#values = new Float64Array(Math.ceil(taken * 1.5));
    const view = this.#values.subarray(0, taken);
    for (let i = 0; i < taken; i++) view[i] = scores[Math.floor(i * step)]!;
    const value = kthLargest(view, k);
    if (step === 1) this.#kthOfAll = { k, value };
    return value;
  }

  /** The slots that may still reach the top: their sum plus the bounds of the terms left reaches the k-th score. Ascending. */
  candidates(left: number, kth: number): Int32Array {
    const { slots, scores } = this;
    const kept = new Int32Array(slots.length);
    let count = 0;
    for (let i = 0; i < slots.length; i++) if (!cannotReach(scores[i]! + left, kth)) kept[count++] = slots[i]!;
    return kept.subarray(0, count);
  }
}
