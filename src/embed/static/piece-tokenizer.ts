/**
 * The bundled model's SentencePiece (unigram) tokenizer, rewritten to be fast and to give exactly
 * the same piece ids as @energetic-ai/embeddings' Tokenizer: the same NFKC normalisation, the same
 * Viterbi lattice over code points with its tie-breaking (a later start wins a tie), the same
 * unknown-character fallback (id 0, score 0) and the same merging of consecutive unknowns. Pure.
 */

/**
 * [piece, log-probability] in id order, as the model's vocab.json stores them; a few pieces with
 * ":" have null there, which the reference adds as 0 (so they always win), and so do we.
 */
export type PieceVocabulary = [string, number | null][];

/** The model's reserved ids (unknown, <s>, </s>, three extras) are never matched as text. */
const RESERVED = 6;
const SEPARATOR = "\u2581";

export type PieceTokenizer = { encode(text: string): number[] };

export function createPieceTokenizer(vocabulary: PieceVocabulary): PieceTokenizer {
  const ids = new Map<string, number>();
  let longest = 1;
  for (let i = RESERVED; i < vocabulary.length; i++) {
    const piece = vocabulary[i]![0];
    ids.set(piece, i);
    longest = Math.max(longest, [...piece].length);
  }
  const scoreOf = (id: number) => (id === 0 ? 0 : (vocabulary[id]![1] ?? 0));
  // The reference steps back by the piece's UTF-16 length; kept so that ids match in every case.
  const lengthOf = (id: number) => vocabulary[id]![0].length;

  return {
    encode(text: string): number[] {
      const normalised = text.normalize("NFKC");
      if (normalised.length === 0) return [];
      const symbols = Array.from(SEPARATOR + normalised.replaceAll(" ", SEPARATOR));
      const n = symbols.length;
      const best = new Float64Array(n + 1);
      const choice = new Int32Array(n + 1);
      // Edges by end position, in ascending start order (the order the reference visits them).
      const edges: { start: number; id: number }[][] = Array.from({ length: n + 1 }, () => []);
      for (let start = 0; start < n; start++) {
        let piece = "";
        let matched = false;
        for (let len = 1; len <= longest && start + len <= n; len++) {
          piece += symbols[start + len - 1];
          const id = ids.get(piece);
          if (id !== undefined) {
            edges[start + len]!.push({ start, id });
            matched = true;
          }
        }
        if (!matched) edges[start + 1]!.push({ start, id: 0 });
      }
      for (let end = 1; end <= n; end++) {
        for (const edge of edges[end]!) {
          const score = scoreOf(edge.id) + best[edge.start]!;
          if (best[end] === 0 || score >= best[end]!) {
            best[end] = score;
            choice[end] = edge.id;
          }
        }
      }
      const reversed: number[] = [];
      for (let at = n; at > 0; at -= lengthOf(choice[at]!)) reversed.push(choice[at]!);
      const merged: number[] = [];
      let previousUnknown = false;
      for (const id of reversed) {
        if (!(previousUnknown && id === 0)) merged.push(id);
        previousUnknown = id === 0;
      }
      return merged.reverse();
    },
  };
}
