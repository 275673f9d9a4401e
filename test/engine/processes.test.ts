import { expect, test } from "bun:test";
import { join } from "node:path";
import { Gllam } from "../../src/gllam/gllam.ts";
import { SAMPLE_LINKS, SAMPLE_NODES } from "../../src/semantic/sample.ts";
import { localEmbedder, makeTempDir, REPO_ROOT } from "../helpers.ts";

test("several processes creating and seeding one new file at once all succeed", async () => {
  const db = join(makeTempDir(), "shared.db");
  const runs = Array.from({ length: 3 }, () =>
    // Bun.spawn does not pass on changes to process.env (the test static table): give them explicitly.
    Bun.spawn(["bun", join(REPO_ROOT, "src/cli/main.ts"), "seed", "--db", db], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" }),
  );
  const results = await Promise.all(runs.map(async (p) => ({ code: await p.exited, stderr: await new Response(p.stderr).text() })));
  expect(results).toEqual(results.map(() => ({ code: 0, stderr: "" })));

  const gllam = await Gllam.open(db, { embedder: localEmbedder, readOnly: true });
  expect(gllam.stats().tables).toMatchObject({
    semantic_nodes: SAMPLE_NODES.length,
    semantic_links: SAMPLE_LINKS.length,
    semantic_embeddings: SAMPLE_NODES.length,
  });
  // The later processes re-asserted the same links with the same (empty) provenance: no new evidence.
  expect(gllam.activeLinks("caddy").every((link) => link.evidenceCount === 1)).toBe(true);
  gllam.close();
});
