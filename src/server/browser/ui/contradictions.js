// Contradictions: the open ones as a queue, both claims side by side with their sources and trust;
// believing one calls the API and the queue updates.
import { api, announce, day, errorBox, h, link, nodeUrl, sourceName, trustBar, validity, viewUrl } from "./lib.js";

function claimCard(entry, claim, onResolve) {
  const believed = entry.winnerLinkId === claim.id;
  return h(
    "div",
    { class: "card claim", "data-link": claim.id },
    h("p", {}, link(nodeUrl(claim.sourceId), claim.subjectName), " ", h("strong", {}, claim.relationship), " ", link(nodeUrl(claim.targetId), claim.objectName)),
    claim.caveats ? h("p", {}, h("span", { class: "muted" }, "caveat: "), claim.caveats) : "",
    h("p", { class: "muted" }, validity(claim.validFrom, claim.validUntil), ` · recorded ${day(claim.recordedAt)} · link ${claim.id}`),
    h(
      "p",
      {},
      "Trust ",
      trustBar(claim.trustWeight),
      " · ",
      claim.source ? link(`${nodeUrl(claim.sourceId)}#source-${encodeURIComponent(claim.source.id)}`, sourceName(claim.source)) : "unattributed",
      claim.source ? h("span", { class: "muted" }, ` (source trust ${claim.source.trustWeight})`) : "",
    ),
    entry.status === "open"
      ? h("button", { type: "button", class: "primary", onclick: () => onResolve(claim) }, `Believe “${claim.objectName}”`)
      : h("p", {}, believed ? h("span", { class: "tag ok" }, "believed") : h("span", { class: "tag" }, "retired")),
  );
}

export async function renderContradictions(root, { query }) {
  const status = query.get("status") === "resolved" ? "resolved" : query.get("status") === "all" ? undefined : "open";
  const queue = h("div", { id: "queue", "aria-live": "polite" });
  const tabs = [
    ["open", "Open"],
    ["resolved", "Resolved"],
    ["all", "All"],
  ].map(([key, label]) => ((status ?? "all") === key ? h("strong", { "aria-current": "true" }, label) : link(viewUrl("/contradictions", { status: key === "open" ? undefined : key }), label)));
  root.append(h("h1", {}, "Contradictions"), h("p", { class: "row" }, tabs.flatMap((t, i) => (i === 0 ? [t] : [" · ", t]))), queue);

  const load = async () => {
    const entries = await api("GET", "/v1/contradictions", { query: { status } });
    queue.replaceChildren(
      entries.length === 0
        ? h("p", { class: "card", id: "queue-empty" }, status === "open" ? "No open contradictions: memory agrees with itself." : "None.")
        : h("p", { class: "muted" }, `${entries.length} ${status ?? ""} contradictions`),
      ...entries.map((entry) =>
        h(
          "article",
          { class: "card contradiction", id: `c-${entry.id}`, "data-contradiction": entry.id },
          h("h2", {}, entry.name, " ", h("span", { class: `tag ${entry.status === "open" ? "bad" : "ok"}` }, entry.status)),
          h("p", { class: "muted" }, entry.reason, ` · opened ${day(entry.createdAt)}`, entry.resolvedAt ? ` · resolved ${day(entry.resolvedAt)}` : ""),
          h("div", { class: "claims" }, entry.claims.map((claim) => claimCard(entry, claim, (c) => resolve(entry, c)))),
        ),
      ),
    );
  };
  const resolve = async (entry, claim) => {
    try {
      const result = await api("POST", `/v1/contradictions/${encodeURIComponent(entry.id)}/resolve`, { body: { winner_link: claim.id } });
      await load();
      announce(`Resolved: link ${result.winnerLinkId} believed, ${result.loserLinkIds.length} retired.`);
      (queue.querySelector("button") ?? document.querySelector("h1"))?.focus();
    } catch (error) {
      queue.prepend(errorBox(error));
    }
  };
  await load();
}
