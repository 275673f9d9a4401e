// Timeline: a scope's episodes per day as a density strip; a day or a window picked there filters
// search. Sessions with their sizes and dates; a session's episodes, each with its own anchor.
import { api, DAY, day, dateTime, errorBox, h, link, parseDay, sessionUrl, viewUrl } from "./lib.js";
import { densityStrip } from "./svg.js";
import { forgetButton } from "./forget.js";

export async function renderTimeline(root, { query }) {
  const from = parseDay(query.get("from"));
  const to = parseDay(query.get("to"));
  // Sessions are counted over every episode: the strip draws first, the list follows when it comes.
  const sessionsBox = h("section", { "aria-label": "Sessions", "aria-busy": "true" }, h("h2", {}, "Sessions"), h("p", { class: "muted" }, "Loading sessions…"));
  // Asked after the strip's data: the server answers one request at a time, and this one is slower.
  const density = await api("GET", "/v1/timeline");
  const sessionsLoaded = api("GET", "/v1/sessions");
  root.append(h("h1", {}, "Timeline"));
  if (density.days.length === 0) {
    root.append(h("p", { class: "card" }, "No dated episodes in this scope yet.", density.undated > 0 ? ` (${density.undated} undated)` : ""));
  } else {
    const min = density.days[0].day;
    const max = density.days[density.days.length - 1].day;
    const selected = from !== undefined ? { start: from, end: (to ?? from) + DAY } : undefined;
    const fromInput = h("input", { id: "window-from", type: "date", value: from === undefined ? "" : day(from) });
    const toInput = h("input", { id: "window-to", type: "date", value: to === undefined ? "" : day(to) });
    const q = h("input", { id: "window-q", type: "search", placeholder: "what to search for in this window" });
    const pick = (ms) => window.gllamNavigate(viewUrl("/timeline", { from: day(ms), to: day(ms) }), { replace: true });
    root.append(
      h(
        "section",
        { class: "card", "aria-label": "Episodes per day" },
        h("p", {}, `${density.total} dated episodes on ${density.days.length} days`, density.undated > 0 ? `, ${density.undated} undated` : "", ". Pick a day, or set a window, then search in it."),
        densityStrip(density.days, { min, max, selected, onPick: pick }),
        h(
          "form",
          {
            class: "row",
            onsubmit: (event) => {
              event.preventDefault();
              window.gllamNavigate(viewUrl("/", { q: q.value.trim(), from: fromInput.value, to: toInput.value || fromInput.value }));
            },
          },
          h("label", { for: "window-from" }, "From"),
          fromInput,
          h("label", { for: "window-to" }, "to"),
          toInput,
          h("label", { for: "window-q" }, "search"),
          q,
          h("button", { type: "submit", class: "primary" }, "Search this window"),
        ),
      ),
    );
  }
  root.append(sessionsBox);
  sessionsLoaded.then(
    (sessions) => {
      sessionsBox.removeAttribute("aria-busy");
      sessionsBox.replaceChildren(h("h2", {}, `Sessions (${sessions.length})`), sessionsTable(sessions));
    },
    (error) => sessionsBox.replaceChildren(errorBox(error)),
  );
}

function sessionsTable(sessions) {
  if (sessions.length === 0) return h("p", { class: "muted" }, "No sessions.");
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "sessions" },
      h("thead", {}, h("tr", {}, ["Session", "Title", "Episodes", "First", "Last"].map((t) => h("th", { scope: "col" }, t)))),
      h(
        "tbody",
        {},
        sessions.map((s) => h("tr", {}, h("td", {}, link(sessionUrl(s.id), s.id)), h("td", {}, s.title ?? ""), h("td", {}, String(s.episodes)), h("td", {}, dateTime(s.firstAt)), h("td", {}, dateTime(s.lastAt)))),
      ),
    ),
  );
}

export async function renderSession(root, { params: [id] }) {
  const episodes = (await api("GET", `/v1/sessions/${encodeURIComponent(id)}/episodes`)).toSorted((a, b) => a.seq - b.seq);
  root.append(
    h("h1", {}, `Session ${id}`),
    h("p", { class: "muted" }, `${episodes.length} episodes${episodes.length === 500 ? " (the latest 500)" : ""} · `, link(viewUrl("/timeline"), "Timeline")),
    h(
      "ol",
      { class: "episodes" },
      episodes.map((e) =>
        h(
          "li",
          { class: "episode", id: `e${e.id}`, tabindex: -1 },
          h("div", { class: "muted" }, `${dateTime(e.occurredAt)} · #${e.seq} · episode ${e.id}`, e.kind === "chunk" ? " · chunk" : ""),
          h("div", {}, e.speaker || e.role ? h("strong", {}, `${e.speaker || e.role}: `) : "", e.content),
        ),
      ),
    ),
    h("p", {}, forgetButton("Forget this session…", { session: id }, () => window.gllamNavigate(viewUrl("/timeline"), { replace: true }))),
  );
}
