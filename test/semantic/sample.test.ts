import { expect, test } from "bun:test";
import { SAMPLE_LINKS, SAMPLE_NODES } from "../../src/semantic/sample.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";

test("seeding twice writes the sample once and adds no evidence the second time", async () => {
  const gllam = await openTempGllam(makeTempDir());
  const first = await gllam.seedSampleMemory();
  expect(first).toEqual({ nodes: SAMPLE_NODES.length, linksInserted: SAMPLE_LINKS.length, linksDeduplicated: 0, embedded: SAMPLE_NODES.length });
  const second = await gllam.seedSampleMemory();
  expect(second).toMatchObject({ linksInserted: 0, linksDeduplicated: SAMPLE_LINKS.length });
  expect(gllam.stats().tables).toMatchObject({
    semantic_nodes: SAMPLE_NODES.length,
    semantic_links: SAMPLE_LINKS.length,
    semantic_embeddings: SAMPLE_NODES.length,
  });
  // The seed walk-through's link, with its caveat.
  expect(gllam.activeLinks("caddy").find((l) => l.relationship === "binds_to")).toMatchObject({
    targetId: "tailscale",
    caveats: expect.stringContaining("Tailscale FQDN"),
    evidenceCount: 1,
  });
  gllam.close();
});
