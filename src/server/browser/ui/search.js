// Search: recall's answer as a person sees it, every citation a link to its source.
import { api, day, h, link, nodeUrl, parseDay, sessionUrl, sourceName, trustBar, validity, viewUrl } from "./lib.js";

export function factLine(fact, selfName, selfId) {
  const other = link(nodeUrl(fact.otherId), fact.otherName);
  const self = selfId ? link(nodeUrl(selfId), selfName) : selfName;
  const [from, to] = fact.direction === "out" ? [self, other] : [other, self];
  // The subject's node page shows the link's history and its source's trust.
  const subjectId = fact.direction === "out" ? selfId : fact.otherId;
  const notes = [];
  if (fact.caveats && fact.caveatInline !== false) notes.push(h("span", {}, h("span", { class: "muted" }, "caveat: "), fact.caveats));
  if (fact.conditions) notes.push(h("span", {}, h("span", { class: "muted" }, "when: "), fact.conditions));
  const marks = [];
  for (const c of fact.contradictions ?? []) if (c.status === "open") marks.push(link(viewUrl("/contradictions"), h("span", { class: "tag bad" }, "⚠ contested")));
  for (const f of fact.fallacies ?? []) marks.push(h("span", { class: "tag warn" }, `fallacy: ${f}`));
  return h(
    "li",
    { id: `link-${fact.id}` },
    from,
    " ",
    h("strong", {}, fact.relationship),
    " ",
    to,
    notes.length > 0 ? [" — ", notes.flatMap((n, i) => (i === 0 ? [n] : [" · ", n]))] : "",
    " ",
    h("span", { class: "muted" }, `(${validity(fact.validFrom, fact.validUntil)}, `),
    trustBar(fact.trustWeight),
    fact.source ? [h("span", { class: "muted" }, ", from "), link(`${nodeUrl(subjectId)}#source-${encodeURIComponent(fact.source.id)}`, sourceName(fact.source))] : "",
    h("span", { class: "muted" }, ") "),
    link(`${nodeUrl(subjectId)}#link-${fact.id}`, `[link ${fact.id}]`),
    " ",
    marks,
  );
}

export function episodeItem(hit) {
  const found = [
    hit.bm25Rank && h("span", { class: "tag" }, `words #${hit.bm25Rank}`),
    hit.denseRank && h("span", { class: "tag" }, `vector #${hit.denseRank}`),
    hit.staticRank && h("span", { class: "tag" }, `static #${hit.staticRank}`),
  ].filter(Boolean);
  return h(
    "li",
    { class: "episode" },
    h("div", { class: "muted" }, day(hit.occurredAt), " · ", link(sessionUrl(hit.sessionId, hit.episodeId), `${hit.sessionId} #${hit.seq}`), ` · episode ${hit.episodeId}`),
    h("div", {}, hit.speaker || hit.role ? h("strong", {}, `${hit.speaker || hit.role}: `) : "", hit.content),
    h("div", { class: "muted" }, "found by: ", found.length > 0 ? found : h("span", { class: "tag" }, "next to a match")),
  );
}

export async function renderSearch(root, { query }) {
  const q = query.get("q") ?? "";
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  const input = h("input", { id: "q", name: "q", type: "search", value: q, size: 40, autocomplete: "off", placeholder: "e.g. web server" });
  const fromInput = h("input", { id: "from", name: "from", type: "date", value: from });
  const toInput = h("input", { id: "to", name: "to", type: "date", value: to });
  const form = h(
    "form",
    {
      role: "search",
      class: "card row",
      onsubmit: (event) => {
        event.preventDefault();
        window.gllamNavigate(viewUrl("/", { q: input.value.trim(), from: fromInput.value, to: toInput.value }));
      },
    },
    h("label", { for: "q" }, "Search memory"),
    input,
    h("label", { for: "from" }, "from"),
    fromInput,
    h("label", { for: "to" }, "to"),
    toInput,
    h("button", { type: "submit", class: "primary" }, "Search"),
  );
  root.append(h("h1", {}, q ? `Memory for “${q}”` : "Search memory"), form);
  if (!q) {
    root.append(h("p", { class: "muted" }, "Ask what memory holds: the entities it is about with their facts, the episodes that mention it, and similar entities."));
    return;
  }
  const window = from || to ? { start: parseDay(from), end: to ? parseDay(to) + 86_400_000 : undefined } : undefined;
  const body = { query: q, episodes: 10, ...(window ? { window } : {}) };
  const result = await api("POST", "/v1/recall", { body });
  for (const warning of result.warnings) root.append(h("p", { class: "tag warn" }, warning));
  for (const name of result.unresolvedEntities) root.append(h("p", { class: "muted" }, `No node named “${name}”.`));
  const results = h("section", { "aria-label": "Results" });
  root.append(results);
  if (result.focus.length === 0 && result.episodes.length === 0) results.append(h("p", {}, "Nothing in memory matches this query."));
  for (const focus of result.focus) {
    const { node } = focus;
    results.append(
      h(
        "article",
        { class: "card focus" },
        h("h2", {}, link(nodeUrl(node.id), node.name), " ", h("span", { class: "tag" }, node.type), " ", h("span", { class: "muted" }, focus.matchedBy === "entity" ? "named in the query" : "nearest to the query")),
        node.contextPrompt ? h("p", {}, node.contextPrompt) : "",
        node.caveatSummary ? h("p", {}, h("strong", {}, "Caveat summary: "), node.caveatSummary) : "",
        focus.links.length > 0 ? h("ul", {}, focus.links.map((fact) => factLine(fact, node.name, node.id))) : h("p", { class: "muted" }, "No active links."),
        h("p", {}, link(viewUrl(`/graph/${encodeURIComponent(node.id)}`), "Graph around it")),
      ),
    );
  }
  if (result.episodes.length > 0) {
    results.append(h("h2", {}, "Episodes"), h("ol", { class: "episodes" }, result.episodes.map(episodeItem)));
  }
  if (result.similar.length > 0) {
    results.append(
      h("h2", {}, "Similar entities"),
      h("ul", {}, result.similar.map((s) => h("li", {}, link(nodeUrl(s.id), s.name), ` (${s.type}) `, h("span", { class: "muted" }, `distance ${s.distance.toFixed(3)}`)))),
    );
  }
  const context = h("pre", { class: "context" }, "…");
  const details = h("details", { class: "card" }, h("summary", {}, "The context as an agent gets it (Markdown)"), context);
  details.addEventListener("toggle", async () => {
    if (!details.open || context.dataset.loaded) return;
    context.dataset.loaded = "1";
    context.textContent = await api("POST", "/v1/recall", { body, markdown: true });
  });
  results.append(details);
}
