/**
 * Property tests over randomised operation sequences (fixed seeds, so failures reproduce):
 * no operation but forget ever deletes a link, and at most one link per exclusive
 * (scope, source, relationship) is believed at any valid time.
 */
import { expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { isGllamError } from "../../src/engine/errors.ts";
import { seededRandom } from "../../src/bench/random.ts";
import { useGraphs } from "./fixtures.ts";

const graph = useGraphs();

const EXCLUSIVE = ["has_state", "located_in", "version_is"];

/** Pairs of believed links of one exclusive key with different targets whose valid intervals overlap. */
function overlaps(gllam: Gllam): unknown[] {
  return gllam
    .dbRO()
    .query(
      `SELECT a.id AS a, b.id AS b FROM semantic_links a JOIN semantic_links b
         ON a.scope = b.scope AND a.source_id = b.source_id AND a.relationship = b.relationship AND a.id < b.id AND a.target_id != b.target_id
       WHERE a.expired_at IS NULL AND b.expired_at IS NULL AND a.relationship IN (SELECT value FROM json_each(?1))
         AND a.valid_from < coalesce(b.valid_until, 9e15) AND b.valid_from < coalesce(a.valid_until, 9e15)`,
    )
    .all(JSON.stringify(EXCLUSIVE));
}

const linkIds = (gllam: Gllam) => gllam.dbRO().query<{ id: number }, []>("SELECT id FROM semantic_links").all().map((r) => r.id);

async function run(seed: number, steps: number, grilling: boolean) {
  const subjects = ["s0", "s1", "s2", "s3", "s4"];
  const targets = ["t0", "t1", "t2", "t3", "t4", "t5"];
  const gllam = await graph([...subjects, ...targets], { allow_user_grilling: grilling });
  const rng = seededRandom(seed);
  // Non-empty lists throughout, except where the result is checked before use.
  const pick = <T,>(items: readonly T[]): T => rng.pick(items) as T;
  const seen = new Set<number>();
  const forgotten = new Set<number>();
  const tally: Record<string, number> = {};
  let now = 1_000_000;
  for (let step = 0; step < steps; step++) {
    now += 1 + rng.int(5000);
    const roll = rng.next();
    let op = "";
    try {
      if (roll < 0.55) {
        op = "addEdge:exclusive";
        const validFrom = rng.next() < 0.5 ? rng.int(now) : undefined;
        const validUntil = validFrom !== undefined && rng.next() < 0.2 ? validFrom + rng.int(200_000) : undefined;
        const result = gllam.addEdge(
          {
            sourceId: pick(subjects),
            targetId: pick(targets),
            relationship: pick(EXCLUSIVE),
            trustWeight: pick([100, 500, 500, 900]),
            caveats: rng.next() < 0.3 ? `caveat ${rng.int(3)}` : "",
            validFrom,
            validUntil,
          },
          { now },
        );
        op += `:${result.action}`;
      } else if (roll < 0.7) {
        op = "addEdge:plain";
        gllam.addEdge({ sourceId: pick(subjects), targetId: pick(targets), relationship: pick(["uses", "depends_on"]), validFrom: rng.int(now) }, { now });
      } else if (roll < 0.78) {
        op = "invalidateObsoleteEdge";
        const link = pick(gllam.dbRO().query<{ id: number; validFrom: number }, []>("SELECT id, valid_from AS validFrom FROM semantic_links").all());
        if (link) gllam.invalidateObsoleteEdge(link.id, link.validFrom + rng.int(100_000));
      } else if (roll < 0.83) {
        op = "cascade";
        gllam.invalidateDependentCrossCuttingLinks(pick(targets), now);
      } else if (roll < 0.9) {
        op = "resolveContradiction";
        const open = gllam
          .dbRO()
          .query<{ id: string; metadata: string }, []>("SELECT id, metadata FROM semantic_nodes WHERE type = 'contradiction' AND json_extract(metadata, '$.status') = 'open'")
          .all();
        const node = pick(open);
        if (node) gllam.resolveContradiction(node.id, pick(JSON.parse(node.metadata).linkIds as number[]));
      } else if (roll < 0.93 && subjects.length > 2) {
        op = "mergeNodes";
        const [keep, drop] = [subjects[0]!, subjects.splice(1 + rng.int(subjects.length - 1), 1)[0]!];
        gllam.mergeNodes(keep, drop);
      } else if (roll < 0.96) {
        op = "compactNodeCaveats";
        gllam.compactNodeCaveats(pick(subjects), 2);
      } else {
        op = "forget";
        const id = pick(linkIds(gllam));
        if (id !== undefined) for (const removed of gllam.forget({ link: id }).removed.links) forgotten.add(removed);
      }
    } catch (error) {
      if (!isGllamError(error, "E_BAD_INPUT")) throw error;
      op += ":refused";
    }
    tally[op] = (tally[op] ?? 0) + 1;
    const current = new Set(linkIds(gllam));
    const lost = [...seen].filter((id) => !current.has(id) && !forgotten.has(id));
    expect({ step, op, lost }).toEqual({ step, op, lost: [] });
    expect({ step, op, overlaps: overlaps(gllam) }).toEqual({ step, op, overlaps: [] });
    for (const id of current) seen.add(id);
  }
  gllam.close();
  return tally;
}

test.each([
  [1, true],
  [2, true],
  [3, false],
  [4, false],
])("seed %d, allow_user_grilling %p: links vanish only through forget; one believed target per exclusive key at any time", async (seed, grilling) => {
  const tally = await run(seed, 400, grilling);
  // The sequence exercised the interesting paths, not only plain inserts.
  const actions = Object.keys(tally).join(" ");
  for (const action of ["superseded", "succeeded", "rejected", "mergeNodes", "forget", "cascade"]) expect(actions).toContain(action);
  if (grilling) expect(actions).toContain("contradiction");
});
