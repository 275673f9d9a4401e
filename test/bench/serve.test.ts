/** `gllam bench serve` runs end to end from the compiled binary (it starts the binary again as the server); figures are not judged here. */
import { describe, expect, test } from "bun:test";
import { freshFolder, runCompiled } from "../server/http/serve-process.ts";

describe("gllam bench serve", () => {
  test("reports latency and throughput for each size", async () => {
    const run = await runCompiled(["bench", "serve", "--episodes", "100,300", "--embedder", "static", "--requests", "5", "--clients", "2"], freshFolder());
    expect(run.code).toBe(0);
    const { runs } = JSON.parse(run.stdout);
    expect(runs.map((r: { episodes: number }) => r.episodes)).toEqual([100, 300]);
    for (const r of runs) {
      expect(r).toMatchObject({ embedder: "static", clients: 2, requests: 10, errors: 0 });
      expect(r.p50_ms).toBeGreaterThan(0);
      expect(r.requests_per_s).toBeGreaterThan(0);
    }
  });
});
