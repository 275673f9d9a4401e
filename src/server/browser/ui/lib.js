// Shared by every view: the API client (bearer token from sessionStorage), a small DOM builder
// that never parses data as HTML, dates, and navigation inside the page.

const TOKEN_KEY = "gllam.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A token given once as /?token=... is kept for the tab's session and taken out of the address. */
export function adoptTokenFromUrl() {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (token === null) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete("token");
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

export const setToken = (token) => (token ? sessionStorage.setItem(TOKEN_KEY, token) : sessionStorage.removeItem(TOKEN_KEY));

/** The scope every view reads (?scope=..., default "default"). */
export const currentScope = () => new URL(location.href).searchParams.get("scope") || "default";

/**
 * Calls the HTTP API. `query` values that are undefined or "" are left out; the scope is added to
 * every call. Errors come back as ApiError with the server's code and message.
 */
export async function api(method, path, { query = {}, body, markdown = false, scoped = true } = {}) {
  const url = new URL(path, location.origin);
  // The scope travels in the body of a request that has one, else in the query.
  if (scoped && body !== undefined) body = { scope: currentScope(), ...body };
  const params = scoped && body === undefined ? { scope: currentScope(), ...query } : query;
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== "") url.searchParams.set(key, String(value));
  const headers = { accept: markdown ? "text/markdown" : "application/json" };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) {
    const payload = await response.json().catch(() => ({}));
    throw new ApiError(response.status, payload.error?.code ?? `HTTP_${response.status}`, payload.error?.message ?? response.statusText);
  }
  return markdown ? response.text() : response.json();
}

/** h("a", { href: "/x", class: "c" }, "text", child): children are nodes or text (never HTML). */
export function h(tag, attrs = {}, ...children) {
  // SVG elements by name; "svg:a" is a link inside a picture (plain "a" is HTML's).
  const svg = tag.startsWith("svg:") || ["svg", "g", "line", "rect", "circle", "text", "path", "title", "marker", "defs"].includes(tag);
  const el = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag.replace(/^svg:/, "")) : document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** The URL of a view with its query (empty values left out; the scope kept unless default). */
export function viewUrl(path, query = {}) {
  const params = new URLSearchParams();
  const scope = currentScope();
  if (scope !== "default" && query.scope === undefined) params.set("scope", scope);
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const nodeUrl = (id, query) => viewUrl(`/node/${encodeURIComponent(id)}`, query);
export const sessionUrl = (id, episodeId) => viewUrl(`/session/${encodeURIComponent(id)}`) + (episodeId ? `#e${episodeId}` : "");

/** A link that navigates inside the page (history API), keeping the full URL for new tabs. */
export const link = (href, ...children) => h("a", { href }, ...children);

export const DAY = 86_400_000;
export const day = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toISOString().slice(0, 10));
export const dateTime = (ms) => (ms === null || ms === undefined ? "—" : new Date(ms).toISOString().slice(0, 16).replace("T", " "));
/** "2025-01-10" (or epoch ms) as epoch ms at UTC midnight; undefined when empty or not a date. */
export function parseDay(text) {
  if (text === null || text === undefined || text === "") return undefined;
  const ms = /^\d+$/.test(String(text)) ? Number(text) : Date.parse(String(text));
  return Number.isFinite(ms) ? ms : undefined;
}
export const validity = (from, until) => (until === null || until === undefined ? `since ${day(from)}` : `${day(from)} → ${day(until)}`);

/** Replaces the view's URL query without a new history entry (sliders, filters). */
export function replaceQuery(query) {
  history.replaceState(history.state, "", viewUrl(location.pathname, query));
}

/** A message in the page's live region, read out by screen readers. */
export function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

export function errorBox(error) {
  const message = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error?.message ?? error);
  return h("p", { class: "error", role: "alert" }, message);
}

export const sourceName = (source) => (source ? `${source.docType}/${source.displayName || source.handle || "?"}` : "unattributed");

/** Trust as a small bar (10..1000) with its number, for tables. */
export function trustBar(weight) {
  const pct = Math.max(0, Math.min(100, ((weight - 10) / 990) * 100));
  return h("span", { class: "trust", title: `trust ${weight} of 1000` }, h("span", { class: "trust-bar", "aria-hidden": "true" }, h("span", { style: `width:${pct.toFixed(0)}%` })), ` ${weight}`);
}

/** Calls fn at most once per `ms` after the last call (sliders re-query the API as they move). */
export function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}
