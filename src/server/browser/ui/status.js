// Health: what the file holds (rows per table, file and WAL size, models) and its open work.
import { api, h, link, viewUrl } from "./lib.js";

const bytes = (n) => (n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KiB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MiB` : `${(n / 1024 ** 3).toFixed(2)} GiB`);

export async function renderStatus(root) {
  const [stats, open] = await Promise.all([api("GET", "/v1/stats", { scoped: false }), api("GET", "/v1/contradictions", { query: { status: "open", limit: 1000 } })]);
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
    h("p", { class: "muted" }, "The sleep cycle's report (clarity, consistency) is printed by `gllam sleep`; bench figures by `gllam bench`. The file keeps neither yet, so they are not shown here."),
  );
}
