// What the engine's two passes over a whole scope add to a process's resident memory (VmHWM, reset
// before the pass) and how long they take. CHECKOUT names the engine (default this one), so two
// checkouts can be run one after the other. Run it as `gllam serve` runs (MIMALLOC_PURGE_DELAY=-1):
//   bun bench/scale/whole-scope.ts cells N [CHECKOUT]    a new file of N random static vectors in one
//     scope, then its cells built (as the first write after `gllam reembed` rebuilds them)
//   bun bench/scale/whole-scope.ts relink FILE [CHECKOUT]  the mentions of FILE's default scope relinked
//     (Gllam.relinkMentions), on a copy that is deleted after
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { seededRandom } from "../../src/bench/random.ts";
import { peakRssMb, resetPeakRss, rssMb } from "../../src/bench/scale.ts";

const [mode, target, checkout = "."] = process.argv.slice(2);
if ((mode !== "cells" && mode !== "relink") || !target) throw new Error("usage: bun bench/scale/whole-scope.ts cells N | relink FILE [CHECKOUT]");
const dir = resolve(checkout);
const { Gllam } = await import(`${dir}/src/gllam/gllam.ts`);
const folder = mkdtempSync(join(tmpdir(), "gllam-whole-scope-"));
const path = join(folder, "scope.db");

/** Runs the pass from a collected heap and a reset peak; reports what it added. */
function measure(run: () => number) {
  resetPeakRss();
  const before = rssMb();
  const started = performance.now();
  const rows = run();
  return { rows, rss_before_mb: before, peak_mb: peakRssMb(), added_mb: peakRssMb() - before, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) };
}

try {
  if (mode === "cells") {
    const n = Number(target);
    const { ensureStaticVectorTable } = await import(`${dir}/src/engine/schema.ts`);
    const { buildScopeCells } = await import(`${dir}/src/episodic/episode-cells.ts`);
    const gllam = await Gllam.open(path, {});
    const db = gllam.store.db();
    const random = seededRandom(7).next;
    gllam.store.transaction(() => {
      ensureStaticVectorTable(db, "random-int8", 256);
      const insert = db.query("INSERT INTO episode_static_vectors (episode_id, scope, embedding) VALUES (?, 'default', vec_int8(?))");
      const vector = new Int8Array(256);
      for (let id = 1; id <= n; id++) {
        for (let d = 0; d < 256; d++) vector[d] = Math.floor(random() * 255) - 127;
        insert.run(id, vector);
      }
    });
    const result = measure(() => {
      gllam.store.transaction(() => buildScopeCells(db, "static", "default", 256));
      return (db.query("SELECT count(*) AS n FROM episode_static_cells").get() as { n: number }).n;
    });
    gllam.close();
    console.log(JSON.stringify({ mode, vectors: n, ...result }));
  } else {
    if (!existsSync(target)) throw new Error(`no file at ${target}`);
    copyFileSync(target, path);
    const gllam = await Gllam.open(path, {});
    const result = measure(() => gllam.relinkMentions());
    const episodes = (gllam.dbRO().query("SELECT count(*) AS n FROM episodes WHERE scope = 'default'").get() as { n: number }).n;
    gllam.close();
    console.log(JSON.stringify({ mode, episodes, ...result }));
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
