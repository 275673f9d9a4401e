// Forget from the page: a dry run shows what would go, and only a confirmation removes it.
import { api, errorBox, h } from "./lib.js";

const PLURAL = { node: "nodes", link: "links", source: "sources", episode: "episodes", session: "sessions" };

function reportList(report) {
  const r = report.removed;
  const items = [
    [r.nodes.length, "nodes", r.nodes.join(", ")],
    [r.links.length, "links", r.links.join(", ")],
    [r.sources.length, "sources", r.sources.join(", ")],
    [r.sessions.length, "sessions", r.sessions.join(", ")],
    [r.episodes.length, "episodes", r.episodes.slice(0, 30).join(", ") + (r.episodes.length > 30 ? ", …" : "")],
    [r.linkEvents, "link events", ""],
    [r.nodeVectors + r.episodeVectors, "vectors", ""],
    [r.mentions, "mentions", ""],
    [r.summaries, "summaries", ""],
  ].filter(([n]) => n > 0);
  return h(
    "ul",
    {},
    items.map(([n, what, ids]) => h("li", {}, h("strong", {}, `${n} ${what}`), ids ? h("span", { class: "muted" }, ` (${ids})`) : "")),
    report.restored.length > 0 ? h("li", {}, `believed again: links ${report.restored.join(", ")}`) : "",
    report.reattributed.length > 0 ? h("li", {}, `kept on other evidence: links ${report.reattributed.join(", ")}`) : "",
  );
}

/**
 * A "Forget…" button for a target ({ node: id } and so on). Pressing it runs the dry run and asks;
 * confirming forgets, then `after(report)` runs (a view reloads or leaves).
 */
export function forgetButton(label, target, after) {
  const [kind, id] = Object.entries(target)[0];
  const button = h("button", { type: "button", class: "danger" }, label);
  button.addEventListener("click", async () => {
    const dialog = h("dialog", { "aria-labelledby": "forget-title" });
    document.body.append(dialog);
    const close = () => (dialog.close(), dialog.remove(), button.focus());
    dialog.addEventListener("cancel", (event) => (event.preventDefault(), close()));
    try {
      const dry = await api("POST", "/v1/forget/dry-run", { body: target });
      const confirm = h("button", { type: "button", class: "danger", id: "forget-confirm" }, `Forget ${kind} ${id}`);
      const cancel = h("button", { type: "button" }, "Cancel");
      cancel.addEventListener("click", close);
      confirm.addEventListener("click", async () => {
        confirm.disabled = true;
        try {
          const report = await api("DELETE", `/v1/${PLURAL[kind]}/${encodeURIComponent(id)}`);
          close();
          await after(report);
        } catch (error) {
          dialog.append(errorBox(error));
        }
      });
      dialog.append(
        h("h2", { id: "forget-title" }, `Forget ${kind} ${id}?`),
        h("p", {}, "This removes it and everything derived only from it, leaving no copy in the file. A dry run says this would go:"),
        reportList(dry),
        h("div", { class: "row" }, confirm, cancel),
      );
      dialog.showModal();
      cancel.focus();
    } catch (error) {
      dialog.remove();
      button.after(errorBox(error));
    }
  });
  return button;
}
