// Health: what the file holds (rows per table, file and WAL size, models) and its open work.
import { api, dateTime, h, link, viewUrl } from "./lib.js";

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${(n / 1024 ** 3).toFixed(2)} GiB`);

export async function renderStatus(root) {
  const [stats, open, sleep] = await Promise.all([
    api("GET", "/v1/stats", { scoped: false }),
    api("GET", "/v1/contradictions", { query: { status: "open", limit: 1000 } }),
    api("GET", "/v1/sleep/last"),
  ]);
  root.append(
    h("h1", {}, "Health"),
    h(
      "section",
      { class: "card", "aria-label": "File" },
      h(
        "dl",
        { class: "grid2" },
        [
          ["Database", stats.path],
          ["Size", `${bytes(stats.fileBytes)} (WAL ${bytes(stats.walBytes)})`],
          ["Schema", `version ${stats.schemaVersion} · SQLite ${stats.sqliteVersion} · sqlite-vec ${stats.sqliteVecVersion}`],
          ["Embedding model", `${stats.embeddingModel ?? "none stored yet"}${stats.embeddingDims ? ` (${stats.embeddingDims} dims)` : ""}`],
          ["Static tier", stats.staticModel ?? "none stored yet"],
          ["Open contradictions (this scope)", open.length],
        ].map(([k, v]) => h("div", {}, h("dt", { class: "muted" }, k), h("dd", {}, String(v)))),
      ),
      open.length > 0 ? link(viewUrl("/contradictions"), "Resolve them") : "",
    ),
    h("h2", {}, "Last sleep cycle"),
    sleepSection(sleep),
    h("h2", {}, "Rows per table"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { id: "tables" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Table"), h("th", { scope: "col" }, "Rows"))),
        h("tbody", {}, Object.entries(stats.tables).map(([name, count]) => h("tr", {}, h("td", {}, name), h("td", {}, count.toLocaleString("en"))))),
      ),
    ),
    h("p", { class: "muted" }, "Retrieval and scale bench figures are written by `gllam bench` into bench/results/ beside the sources, not into the memory file, so the server has none to show."),
  );
}

const score = (value) => (value === null || value === undefined ? "n/a (no traces)" : value.toFixed(2));

function sleepSection(last) {
  if (last === null) return h("p", { class: "card muted", id: "sleep" }, "No sleep cycle has run in this scope yet (`gllam sleep`).");
  const r = last.report;
  return h(
    "section",
    { class: "card", id: "sleep", "aria-label": "Last sleep cycle" },
    h("p", {}, `${dateTime(last.finishedAt)} · `, h("span", { class: `tag ${last.status === "done" ? "ok" : "bad"}` }, last.status), ` · ${r.seconds.toFixed(2)} s · seed ${r.seed}`),
    h(
      "dl",
      { class: "grid2" },
      [
        ["Memory clarity", score(r.memoryClarityScore)],
        ["Consistency", `${score(r.memoryConsistencyScore)} over ${r.traceCount} trace tests`],
        ["Hub caveats", `${r.compactedHubs} hubs compacted, ${r.compactedRevisionsCount} caveats moved into summaries`],
        ["Taxonomy", `${r.consolidations.length} of ${r.mergeCandidateCount} merges, ${r.movedNodes} nodes moved, ${r.categorizedCount} categorized, ${r.uncategorizedRemaining} uncategorized`],
        ["Taxonomy cycles", r.taxonomyCycles.length === 0 ? "none" : r.taxonomyCycles.map((c) => c.join(" ↔ ")).join("; ")],
        ["Failed steps", r.errors.length === 0 ? "none" : r.errors.map((e) => `${e.step}: ${e.message}`).join("; ")],
      ].map(([k, v]) => h("div", {}, h("dt", { class: "muted" }, k), h("dd", {}, v))),
    ),
  );
}
