/** Splitting a session's turns into chunks that fit the model's context window. Pure. */
import { estimateTokens, type PromptTurn } from "./extraction-prompt.ts";

/**
 * Consecutive turns in chunks of at most `budget` estimated tokens each (a turn larger than the
 * budget gets a chunk to itself: cutting a turn would cut its claims).
 */
export function chunkTurns(turns: readonly PromptTurn[], budget: number): PromptTurn[][] {
  const chunks: PromptTurn[][] = [];
  let current: PromptTurn[] = [];
  let used = 0;
  for (const turn of turns) {
    const cost = estimateTokens(turn.content) + estimateTokens(turn.speaker) + 4;
    if (current.length > 0 && used + cost > budget) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(turn);
    used += cost;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Tokens left for turns in a context of `contextTokens`: minus the fixed prompt (system prompt,
 * schema) and a quarter kept for the answer.
 */
export const turnBudget = (contextTokens: number, fixedPromptTokens: number): number => Math.max(256, Math.floor(contextTokens * 0.75) - fixedPromptTokens);
