/**
 * Turns as an agent hands them over one at a time (MCP `remember`, HTTP `POST /v1/episodes`):
 * without a position, each goes to the end of its session. A retried call must not store a turn
 * twice, so a turn identical to the last one of its session (speaker, text, time) is that turn.
 */
import type { Store } from "../engine/store.ts";
import type { StaticEmbedder } from "../embed/static/static-embedder.ts";
import { parseScope } from "../memory/parse.ts";
import type { EpisodeInput } from "../memory/types.ts";
import { insertEpisodes, parseEpisodes, type AddEpisodesResult } from "./episodes.ts";

export type TurnInput = Omit<EpisodeInput, "seq"> & { seq?: number };

type LastTurn = { id: number; seq: number; speaker: string; content: string; occurredAt: number | null };

export function rememberTurns(store: Store, turns: TurnInput[], options: { staticEmbedder?: StaticEmbedder } = {}): AddEpisodesResult {
  return store.transaction(() => {
    const db = store.db();
    const last = db.query<LastTurn, [string, string]>(
      `SELECT id, seq, speaker, content, occurred_at AS occurredAt FROM episodes WHERE scope = ? AND session_id = ? ORDER BY seq DESC LIMIT 1`,
    );
    const next = new Map<string, number>();
    const placed = turns.map((turn): EpisodeInput => {
      if (turn.seq !== undefined) return { ...turn, seq: turn.seq };
      const scope = parseScope(turn.scope);
      const key = `${scope}\u0000${turn.sessionId}`;
      let seq = next.get(key);
      if (seq === undefined) {
        const end = last.get(scope, String(turn.sessionId).trim());
        const retried = end && end.speaker === (turn.speaker ?? "") && end.content === turn.content && (end.occurredAt ?? undefined) === toMs(turn.occurredAt);
        seq = end ? (retried ? end.seq : end.seq + 1) : 0;
      }
      next.set(key, seq + 1);
      return { ...turn, scope, seq };
    });
    return insertEpisodes(db, parseEpisodes(placed), { staticEmbedder: options.staticEmbedder });
  });
}

const toMs = (value: EpisodeInput["occurredAt"]): number | undefined =>
  value === undefined ? undefined : typeof value === "number" ? value : new Date(value).getTime();
