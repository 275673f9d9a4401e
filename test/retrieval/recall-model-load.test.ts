/**
 * A fresh recall loads the bundled model only when the scope holds model vectors to compare the
 * query with; the static tier answers the rest (a CLI recall then costs no model load).
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";

const dir = makeTempDir();

async function ingest(db: string, extra: string[]) {
  const file = join(dir, "turns.jsonl");
  const turns = ["the ferry to Tangier leaves at noon", "we pack snorkel gear and sunscreen", "Ann booked the riad near the medina"];
  await Bun.write(file, turns.map((content, i) => JSON.stringify({ session_id: "trip", speaker: i % 2 ? "Bob" : "Ann", content })).join("\n"));
  const run = runGllam(["ingest", file, "--db", db, ...extra]);
  expect(run.code).toBe(0);
}

function freshRecall(db: string, query: string, scope = "default"): { modelLoaded: boolean; episodes: number; denseUsed: boolean } {
  // The env explicitly: Bun.spawn does not pass on process.env changes (the tests' static table, set
  // by test/setup.ts; without it a fresh HOME distils the full table, which loads the model).
  const proc = Bun.spawnSync(["bun", join(REPO_ROOT, "test/fixtures/recall-model-load.ts"), db, query, scope], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
  expect(proc.exitCode).toBe(0);
  return JSON.parse(proc.stdout.toString());
}

describe("a fresh recall and the bundled model", () => {
  test("static vectors only: the static tier embeds the query, the model is not loaded", async () => {
    const db = join(dir, "static.db");
    await ingest(db, []);
    expect(freshRecall(db, "when does the ferry leave")).toEqual({ modelLoaded: false, episodes: 3, denseUsed: false });
  });

  test("once the scope holds model vectors, recall loads the model and uses them", async () => {
    const db = join(dir, "model.db");
    await ingest(db, ["--wait"]);
    expect(freshRecall(db, "when does the ferry leave")).toEqual({ modelLoaded: true, episodes: 3, denseUsed: true });
  });

  test("model vectors in another scope do not make this scope's recall load the model", () => {
    expect(freshRecall(join(dir, "model.db"), "when does the ferry leave", "elsewhere")).toEqual({ modelLoaded: false, episodes: 0, denseUsed: false });
  });
});
