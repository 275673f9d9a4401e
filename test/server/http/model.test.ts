/** `gllam serve` with the default embedder: the bundled model, loaded once at start, embeds every recall's query. */
import { afterAll, describe, expect, test } from "bun:test";
import { call, startServe } from "./serve-process.ts";

const served = await startServe(["--db", "memory.db"]);
afterAll(() => served.stop());

describe("gllam serve with the bundled model", () => {
  test("recall answers with the model's query vector, request after request", async () => {
    const stored = await call(served, "POST", "/v1/episodes", {
      episodes: [
        { session_id: "m", speaker: "erin", content: "The backup job copies the database to the NAS every night" },
        { session_id: "m", speaker: "erin", content: "Lunch is at noon on Fridays" },
      ],
    });
    expect(stored.status).toBe(200);
    for (const query of ["nightly database backups", "when is lunch"]) {
      const reply = await call(served, "POST", "/v1/recall", { query, episodes: 1 });
      expect(reply.status).toBe(200);
      expect(reply.json.denseUsed).toBe(true);
      expect(reply.json.warnings).toEqual([]);
    }
    const [backup, lunch] = await Promise.all(
      ["nightly database backups", "when is lunch"].map((query) => call(served, "POST", "/v1/recall", { query, episodes: 1 })),
    );
    expect(backup!.json.episodes[0].content).toContain("backup job");
    expect(lunch!.json.episodes[0].content).toContain("Lunch");
  });
});
