// The page's shell: client-side routing with the history API (every view has its own URL that
// reproduces it), the scope box, and the token form when the server asks for one.
import { adoptTokenFromUrl, ApiError, currentScope, errorBox, h, setToken, viewUrl } from "./lib.js";
import { renderSearch } from "./search.js";
import { renderNode } from "./node.js";
import { renderGraph } from "./graph.js";
import { renderContradictions } from "./contradictions.js";
import { renderTimeline, renderSession } from "./timeline.js";
import { renderStatus } from "./status.js";

const VIEWS = [
  { pattern: /^\/$/, render: renderSearch, nav: "/" },
  { pattern: /^\/node\/([^/]+)$/, render: renderNode },
  { pattern: /^\/graph\/([^/]+)$/, render: renderGraph },
  { pattern: /^\/contradictions$/, render: renderContradictions, nav: "/contradictions" },
  { pattern: /^\/timeline$/, render: renderTimeline, nav: "/timeline" },
  { pattern: /^\/session\/([^/]+)$/, render: renderSession },
  { pattern: /^\/status$/, render: renderStatus, nav: "/status" },
];

const main = document.getElementById("main");
let rendering = 0;

async function render() {
  const ticket = ++rendering;
  const view = VIEWS.find((v) => v.pattern.test(location.pathname));
  const params = view ? location.pathname.match(view.pattern).slice(1).map(decodeURIComponent) : [];
  const query = new URL(location.href).searchParams;
  for (const a of document.querySelectorAll("nav.views a")) {
    if (a.getAttribute("data-view") === view?.nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.getElementById("scope").value = currentScope();
  const content = h("div", { class: "view" });
  try {
    if (!view) throw new Error(`no view at ${location.pathname}`);
    await view.render(content, { params, query });
  } catch (error) {
    content.replaceChildren(error instanceof ApiError && error.status === 401 ? tokenForm(error) : errorBox(error));
  }
  // A later navigation won while this view was loading: it draws instead.
  if (ticket !== rendering) return;
  main.replaceChildren(content);
  const heading = main.querySelector("h1");
  document.title = `${heading?.textContent ?? "GLLAM"} · GLLAM memory`;
  if (moveFocus && heading) {
    heading.setAttribute("tabindex", "-1");
    heading.focus();
  }
  moveFocus = false;
  // A citation's anchor (#link-5, #source-..., #e12) exists only now that the view is drawn.
  const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
  if (target) {
    target.scrollIntoView({ block: "center" });
    if (target.hasAttribute("tabindex")) target.focus();
  }
  // The view is drawn: tests wait for data-ready, bench/browser reads the mark's time.
  performance.mark("gllam:ready");
  document.body.dataset.ready = String(ticket);
}

function tokenForm(error) {
  const input = h("input", { id: "token", type: "password", autocomplete: "current-password", required: true });
  return h(
    "form",
    { class: "card", onsubmit: (event) => (event.preventDefault(), setToken(input.value), render()) },
    h("h1", {}, "Token needed"),
    h("p", {}, `This server asks for a bearer token (${error.message}). It is kept for this tab only.`),
    h("label", { for: "token" }, "Token "),
    input,
    " ",
    h("button", { type: "submit" }, "Use token"),
  );
}

let moveFocus = false;
/** Goes to a URL of this page without reloading it. */
export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  moveFocus = true;
  return render();
}
window.gllamNavigate = navigate;

document.addEventListener("click", (event) => {
  const a = event.target.closest?.("a[href]");
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith("/v1/") || url.pathname.startsWith("/assets/") || url.pathname === "/openapi.json") return;
  event.preventDefault();
  if (url.pathname === location.pathname && url.search === location.search && url.hash) {
    history.pushState(null, "", url);
    document.getElementById(url.hash.slice(1))?.focus();
    return;
  }
  navigate(url.pathname + url.search + url.hash);
});
window.addEventListener("popstate", () => render());

document.getElementById("scope-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const scope = document.getElementById("scope").value.trim() || "default";
  const url = new URL(location.href);
  if (scope === "default") url.searchParams.delete("scope");
  else url.searchParams.set("scope", scope);
  navigate(url.pathname + url.search);
});
for (const a of document.querySelectorAll("nav.views a")) {
  a.addEventListener("click", () => (a.href = viewUrl(a.getAttribute("data-view"))));
}

adoptTokenFromUrl();
render();
