// Node page: the node's facts at a world time (asOf) as believed at a system time (knownAt), each
// relationship's history as a timeline, and its sources' trust with every part.
import { api, announce, DAY, day, debounce, errorBox, h, link, nodeUrl, parseDay, replaceQuery, sourceName, trustBar, validity, viewUrl } from "./lib.js";
import { historyTimeline } from "./svg.js";
import { forgetButton } from "./forget.js";

const toDay = (ms) => Math.floor(ms / DAY);

function factsTable(result, nodeId) {
  if (result.facts.length === 0) return h("p", { class: "muted", id: "no-facts" }, "No facts hold at this time.");
  const rows = result.facts.map((f) => {
    const notes = [
      ...(f.contradictions ?? []).filter((c) => c.status === "open").map(() => link(viewUrl("/contradictions"), h("span", { class: "tag bad" }, "⚠ contested"))),
      ...(f.fallacies ?? []).map((kind) => h("span", { class: "tag warn" }, `fallacy: ${kind}`)),
      ...(f.supersedes ?? []).map((b) => h("span", { class: "tag" }, `${b.endReason === "contradicted" ? "contested by" : b.endReason === "succeeded" ? "followed" : "prevailed over"} ${b.targetName} (${b.trustWeight})`)),
    ];
    return h(
      "tr",
      { id: `link-${f.id}`, "data-link": f.id },
      h("td", {}, f.direction === "out" ? "→ " : "← ", h("strong", {}, f.relationship)),
      h("td", {}, link(nodeUrl(f.otherId), f.otherName)),
      h("td", {}, f.caveats ?? "", f.conditions ? h("div", { class: "muted" }, `when: ${f.conditions}`) : ""),
      h("td", { class: "nowrap" }, validity(f.validFrom, f.validUntil)),
      h("td", {}, trustBar(f.trustWeight)),
      h("td", {}, f.source ? link(`${nodeUrl(nodeId)}#source-${encodeURIComponent(f.source.id)}`, sourceName(f.source)) : h("span", { class: "muted" }, f.originSourceId ?? "—")),
      h("td", {}, notes, " ", `[link ${f.id}]`),
    );
  });
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "facts" },
      h("caption", { class: "muted" }, `${result.facts.length} facts`),
      h("thead", {}, h("tr", {}, ["Relationship", "Other", "Caveats and conditions", "Valid", "Trust", "Source", "Notes"].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows),
    ),
  );
}

/** A range input stepping in days with a date label; `onChange(ms | undefined)` when it moves. */
function daySlider(id, label, { min, max, value, onChange, nowLabel }) {
  const input = h("input", { id, type: "range", min: toDay(min), max: toDay(max), step: 1, value: toDay(value ?? max) });
  const output = h("output", { for: id, id: `${id}-value` });
  const show = () => {
    const ms = Number(input.value) * DAY;
    const atEnd = Number(input.value) >= toDay(max);
    output.textContent = atEnd && nowLabel ? nowLabel : day(ms);
    input.setAttribute("aria-valuetext", output.textContent);
    return atEnd && nowLabel ? undefined : ms;
  };
  show();
  const changed = debounce(() => onChange(show()), 120);
  input.addEventListener("input", () => (show(), changed()));
  return h("div", { class: "slider" }, h("label", { for: id }, label), input, output);
}

function sourceCard(trust) {
  const { source, parts } = trust;
  const sign = (n) => (n >= 0 ? `+${n}` : String(n));
  const basis = {
    custom_rule: "custom document type rule",
    table: "document type table",
    default: "unknown type, default base",
    handle: `heuristic for ${parts.source.key}`,
    role: `role fallback ${parts.source.key}`,
    none: "no heuristic for this handle or role",
  };
  return h(
    "article",
    { class: "card", id: `source-${source.id}`, tabindex: -1 },
    h("h3", {}, source.displayName || source.handle || source.docType, " ", h("span", { class: "tag" }, source.docType), source.role ? h("span", { class: "tag" }, source.role) : ""),
    h("p", {}, "Composite trust ", trustBar(trust.total), h("span", { class: "muted" }, ` = clamp(${trust.raw}, ${trust.bounds[0]}, ${trust.bounds[1]}) · ${trust.claims.active} claims believed, ${trust.claims.retired} retired`)),
    h(
      "table",
      { class: "parts" },
      h("tbody", {},
        h("tr", {}, h("th", { scope: "row" }, "W_doc_type"), h("td", {}, String(parts.docType.weight)), h("td", {}, `${parts.docType.key} (${basis[parts.docType.basis]})`)),
        h("tr", {}, h("th", { scope: "row" }, "W_source"), h("td", {}, sign(parts.source.weight)), h("td", {}, basis[parts.source.basis])),
        h("tr", {}, h("th", { scope: "row" }, "dW_coherence"), h("td", {}, sign(parts.coherence)), h("td", {}, "the prose check of its latest entry")),
        h("tr", {}, h("th", { scope: "row" }, "dW_freshness"), h("td", {}, sign(parts.freshness)), h("td", {}, source.authoredAt ? `written ${day(source.authoredAt)}` : "age unknown")),
      ),
    ),
    h("p", { class: "muted" }, `id ${source.id}`, " ", forgetButton("Forget this source…", { source: source.id }, () => window.gllamNavigate(location.pathname + location.search, { replace: true }))),
  );
}

export async function renderNode(root, { params: [id], query }) {
  let asOf = parseDay(query.get("asOf"));
  let knownAt = parseDay(query.get("knownAt"));
  const [initial, history] = await Promise.all([
    api("GET", `/v1/nodes/${encodeURIComponent(id)}/facts`, { query: { as_of: asOf, known_at: knownAt } }),
    api("GET", `/v1/nodes/${encodeURIComponent(id)}/histories`),
  ]);
  const node = initial.node;
  const versions = history.relationships.flatMap((r) => r.versions);
  const now = Date.now();
  const starts = [...versions.map((v) => v.link.validFrom), ...initial.facts.map((f) => f.validFrom), now];
  const min = Math.min(...starts) - 30 * DAY;
  const recorded = Math.min(...versions.map((v) => v.link.recordedAt), now) - DAY;

  root.append(
    h("h1", {}, node.name, " ", h("span", { class: "tag" }, node.type)),
    node.contextPrompt ? h("p", {}, node.contextPrompt) : "",
    h(
      "p",
      { class: "muted" },
      `id ${node.id}`,
      node.aliases.length > 0 ? ` · aliases: ${node.aliases.join(", ")}` : "",
      node.taxonomyPath !== "/" ? ` · taxonomy ${node.taxonomyPath}` : "",
      " · ",
      link(viewUrl(`/graph/${encodeURIComponent(node.id)}`, { asOf: query.get("asOf") ?? undefined }), "Graph around it"),
      " · ",
      link(viewUrl("/", { q: node.name }), "Search for it"),
    ),
    node.caveatSummary ? h("p", {}, h("strong", {}, "Caveat summary: "), node.caveatSummary) : "",
  );

  const factsBox = h("div", { "aria-live": "polite" }, factsTable(initial, node.id));
  const heading = h("h2", { id: "facts-heading" });
  const describe = () => {
    heading.textContent = `Facts at ${asOf === undefined ? "now" : day(asOf)}${knownAt === undefined ? "" : `, as believed on ${day(knownAt)}`}`;
  };
  describe();
  const requery = async () => {
    replaceQuery({ asOf: asOf === undefined ? undefined : day(asOf), knownAt: knownAt === undefined ? undefined : day(knownAt) });
    describe();
    try {
      const result = await api("GET", `/v1/nodes/${encodeURIComponent(node.id)}/facts`, { query: { as_of: asOf, known_at: knownAt } });
      factsBox.replaceChildren(factsTable(result, node.id));
      drawHistory();
      announce(`${result.facts.length} facts`);
    } catch (error) {
      factsBox.replaceChildren(errorBox(error));
    }
  };
  root.append(
    h(
      "section",
      { class: "card", "aria-label": "Time" },
      daySlider("asOf", "World time (asOf)", { min, max: now, value: asOf, nowLabel: "now", onChange: (ms) => ((asOf = ms), requery()) }),
      daySlider("knownAt", "System time (knownAt)", { min: Math.min(recorded, now - DAY), max: now, value: knownAt, nowLabel: "now", onChange: (ms) => ((knownAt = ms), requery()) }),
      h("p", { class: "muted" }, "World time: when a fact held. System time: what memory believed on that day (facts learned later are hidden, facts retired later come back)."),
    ),
    heading,
    factsBox,
  );

  const historyBox = h("div", {});
  const drawHistory = () => {
    historyBox.replaceChildren(
      ...(history.relationships.length === 0
        ? [h("p", { class: "muted" }, "No relationships stated by this node.")]
        : history.relationships.map(({ relationship, versions }) =>
            h(
              "div",
              { class: "card history", "data-relationship": relationship },
              h("h3", {}, `${node.name} ${relationship}`),
              historyTimeline(versions, { min, max: now, cursor: asOf ?? now }),
              h(
                "ul",
                { class: "muted" },
                versions.map((ver) =>
                  h(
                    "li",
                    {},
                    `${ver.targetName}: ${validity(ver.link.validFrom, ver.link.validUntil)}, ${sourceName(ver.source)}, trust ${ver.link.trustWeight}, ${ver.status}`,
                    ver.ended ? ` — ${ver.ended}` : "",
                    ` [link ${ver.link.id}] `,
                    forgetButton("Forget…", { link: ver.link.id }, () => window.gllamNavigate(location.pathname + location.search, { replace: true })),
                  ),
                ),
              ),
            ),
          )),
    );
  };
  drawHistory();
  root.append(h("h2", {}, "History"), historyBox);

  const sourceIds = [...new Set([...versions.map((v) => v.source?.id), ...initial.facts.map((f) => f.source?.id)].filter(Boolean))];
  const sources = h("div", { class: "grid2" });
  root.append(h("h2", {}, "Sources"), sourceIds.length === 0 ? h("p", { class: "muted" }, "No attributed sources.") : sources);
  const trusts = await Promise.all(sourceIds.map((sid) => api("GET", `/v1/sources/${encodeURIComponent(sid)}/trust`).catch((error) => error)));
  for (const trust of trusts) sources.append(trust instanceof Error ? errorBox(trust) : sourceCard(trust));

  root.append(h("h2", {}, "Forget"), h("p", {}, forgetButton("Forget this node…", { node: node.id }, () => window.gllamNavigate(viewUrl("/"), { replace: true }))));
}
