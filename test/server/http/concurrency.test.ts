/**
 * `gllam serve` beside CLI processes on the same file: separate processes on one WAL database,
 * each seeing the other's writes, none losing any.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { call, freshFolder, runCompiled, startServe } from "./serve-process.ts";

const where = freshFolder();
const served = await startServe(["--db", "memory.db", "--embedder", "static", "--workers", "0"], where);
afterAll(() => served.stop());

const cli = (args: string[]) => runCompiled([...args, "--db", "memory.db", "--embedder", "static"], where);

describe("gllam serve beside the CLI", () => {
  test("HTTP writes and CLI writes interleave on one file, and each side reads the other's", async () => {
    const tools = ["alpha", "bravo", "charlie", "delta"];
    const cliWriter = (async () => {
      const codes: number[] = [];
      for (const [i, tool] of tools.entries()) codes.push((await cli(["fact", "add", `tool-${tool}`, "runs_on", `host-${i}`, "--new"])).code);
      return codes;
    })();
    const httpWriter = Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(served, "POST", "/v1/episodes", { episodes: [{ session_id: `s-${i % 4}`, speaker: "ops", content: `turn ${i} about tool-${tools[i % 4]}` }] }),
      ),
    );
    const [codes, replies] = await Promise.all([cliWriter, httpWriter]);
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));

    for (const [i, tool] of tools.entries()) {
      const facts = await call(served, "GET", `/v1/nodes/tool-${tool}/facts`);
      expect(facts.status).toBe(200);
      expect(facts.json.facts.map((f: { otherName: string }) => f.otherName)).toEqual([`host-${i}`]);
    }
    const stats = await cli(["stats", "--json"]);
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout).tables.episodes).toBe(20);
  });
});
