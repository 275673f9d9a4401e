// Graph view: a node's 1-2 hop neighbourhood with labelled links (ended and retired dashed,
// contested red) and a path finder between two nodes.
import { api, day, errorBox, h, link, nodeUrl, parseDay, validity, viewUrl } from "./lib.js";
import { neighbourhoodGraph } from "./svg.js";

export async function renderGraph(root, { params: [id], query }) {
  const hops = query.get("hops") === "2" ? 2 : 1;
  const asOf = parseDay(query.get("asOf"));
  const to = query.get("to") ?? "";
  const data = await api("GET", `/v1/nodes/${encodeURIComponent(id)}/neighbourhood`, { query: { hops, as_of: asOf } });
  const center = data.nodes.find((n) => n.id === data.center);
  const names = new Map(data.nodes.map((n) => [n.id, n.name]));
  let path;
  let pathError;
  if (to) {
    try {
      path = await api("GET", "/v1/path", { query: { from: data.center, to, as_of: asOf, max_hops: 6 } });
    } catch (error) {
      pathError = error;
    }
  }
  const keep = (extra) => viewUrl(`/graph/${encodeURIComponent(data.center)}`, { hops, asOf: asOf === undefined ? undefined : day(asOf), to: to || undefined, ...extra });
  const toInput = h("input", { id: "path-to", name: "to", value: to, autocomplete: "off", placeholder: "a node's name or id" });
  const asOfInput = h("input", { id: "graph-asof", type: "date", value: asOf === undefined ? "" : day(asOf) });
  root.append(
    h("h1", {}, `Graph around ${center?.name ?? id}`),
    h(
      "div",
      { class: "card row" },
      h("span", {}, "Hops: ", hops === 1 ? h("strong", {}, "1") : link(keep({ hops: 1 }), "1"), " · ", hops === 2 ? h("strong", {}, "2") : link(keep({ hops: 2 }), "2")),
      h(
        "form",
        { class: "row", onsubmit: (event) => (event.preventDefault(), window.gllamNavigate(keep({ asOf: asOfInput.value || undefined }))) },
        h("label", { for: "graph-asof" }, "World time"),
        asOfInput,
        h("button", { type: "submit" }, "Show"),
      ),
      link(nodeUrl(data.center), "Node page"),
    ),
    h(
      "form",
      { class: "card row", role: "search", "aria-label": "Path finder", onsubmit: (event) => (event.preventDefault(), window.gllamNavigate(keep({ to: toInput.value.trim() || undefined }))) },
      h("label", { for: "path-to" }, `Path from ${center?.name ?? id} to`),
      toInput,
      h("button", { type: "submit", class: "primary" }, "Find path"),
    ),
  );
  if (pathError) root.append(errorBox(pathError));
  if (path) {
    root.append(
      path.found
        ? h(
            "section",
            { class: "card", id: "path", "aria-label": "Path" },
            h("h2", {}, `${path.hops} hops: `, path.nodes.flatMap((n, i) => (i === 0 ? [link(nodeUrl(n.id), n.name)] : [" → ", link(nodeUrl(n.id), n.name)]))),
            h(
              "ol",
              {},
              path.links.map((l, i) =>
                h("li", {}, `${path.nodes[i].name} `, h("strong", {}, l.direction === "out" ? `${l.relationship} →` : `← ${l.relationship}`), ` ${path.nodes[i + 1].name}`, l.caveats ? ` — caveat: ${l.caveats}` : "", h("span", { class: "muted" }, ` (${validity(l.validFrom, l.validUntil)}, trust ${l.trustWeight}, link ${l.id})`)),
              ),
            ),
          )
        : h("p", { class: "card", id: "path" }, `No path of at most ${path.maxHops} hops (${path.explored} nodes explored).`),
    );
  }
  const pathLinks = new Set(path?.found ? path.links.map((l) => l.id) : []);
  root.append(
    h("div", { class: "card graph-card" }, neighbourhoodGraph(data, { nodeHref: (nid) => viewUrl(`/graph/${encodeURIComponent(nid)}`, { hops, asOf: asOf === undefined ? undefined : day(asOf) }), pathLinks })),
    h("p", { class: "muted" }, "Solid: believed at this time. Dashed: ended or retired. Red with ⚠: in an open contradiction. Select a node to centre the graph on it.", data.truncated ? " The neighbourhood was cut to its strongest links." : ""),
  );
  root.append(
    h("h2", {}, "Links"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, ["From", "Relationship", "To", "Valid", "State", "Trust"].map((t) => h("th", { scope: "col" }, t)))),
        h(
          "tbody",
          {},
          data.links.map((l) =>
            h(
              "tr",
              {},
              h("td", {}, link(nodeUrl(l.sourceId), names.get(l.sourceId) ?? l.sourceId)),
              h("td", {}, l.relationship),
              h("td", {}, link(nodeUrl(l.targetId), names.get(l.targetId) ?? l.targetId)),
              h("td", {}, validity(l.validFrom, l.validUntil)),
              h("td", {}, l.status, l.contradictions.length > 0 ? [" ", link(viewUrl("/contradictions"), h("span", { class: "tag bad" }, "contested"))] : ""),
              h("td", {}, String(l.trustWeight)),
            ),
          ),
        ),
      ),
    ),
  );
}
