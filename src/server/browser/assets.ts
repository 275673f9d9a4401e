/**
 * The memory browser's files, embedded in the executable as text (nothing to fetch, no build
 * step): the page answers `/` and every view's path (client-side routing reproduces the view from
 * its URL), its scripts and style live under /assets/. It reads memory only through the HTTP API.
 */
import app from "./ui/app.js" with { type: "text" };
import contradictions from "./ui/contradictions.js" with { type: "text" };
import forget from "./ui/forget.js" with { type: "text" };
import graph from "./ui/graph.js" with { type: "text" };
import lib from "./ui/lib.js" with { type: "text" };
import node from "./ui/node.js" with { type: "text" };
import search from "./ui/search.js" with { type: "text" };
import status from "./ui/status.js" with { type: "text" };
import style from "./ui/style.css" with { type: "text" };
import svg from "./ui/svg.js" with { type: "text" };
import timeline from "./ui/timeline.js" with { type: "text" };

const JS = "text/javascript; charset=utf-8";
const FILES: Record<string, { body: string; type: string }> = {
  "app.js": { body: app, type: JS },
  "contradictions.js": { body: contradictions, type: JS },
  "forget.js": { body: forget, type: JS },
  "graph.js": { body: graph, type: JS },
  "lib.js": { body: lib, type: JS },
  "node.js": { body: node, type: JS },
  "search.js": { body: search, type: JS },
  "status.js": { body: status, type: JS },
  "style.css": { body: style, type: "text/css; charset=utf-8" },
  "svg.js": { body: svg, type: JS },
  "timeline.js": { body: timeline, type: JS },
};

/** The views' paths (the page answers them all; the script draws the one the URL names). */
const VIEW_PATHS = [/^\/$/, /^\/node\/[^/]+$/, /^\/graph\/[^/]+$/, /^\/contradictions$/, /^\/timeline$/, /^\/session\/[^/]+$/, /^\/status$/];

// Every script is fetched at once (modulepreload), so a view costs one round trip, not a chain of imports.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GLLAM memory</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/style.css">
${Object.keys(FILES)
  .filter((name) => name.endsWith(".js"))
  .map((name) => `<link rel="modulepreload" href="/assets/${name}">`)
  .join("\n")}
<script type="module" src="/assets/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/">GLLAM memory</a>
  <nav class="views" aria-label="Views"><ul>
    <li><a href="/" data-view="/">Search</a></li>
    <li><a href="/contradictions" data-view="/contradictions">Contradictions</a></li>
    <li><a href="/timeline" data-view="/timeline">Timeline</a></li>
    <li><a href="/status" data-view="/status">Health</a></li>
  </ul></nav>
  <form id="scope-form" aria-label="Scope"><label for="scope">Scope</label><input id="scope" name="scope" autocomplete="off"><button type="submit">Use</button></form>
</header>
<main id="main" tabindex="-1"><p class="muted">Loading…</p></main>
<div id="announce" class="skip" aria-live="polite" role="status"></div>
<noscript><p>The memory browser needs JavaScript; the same data is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
</body>
</html>
`;

// A content hash: the browser revalidates and gets 304 until the binary (and so a file) changes.
const etag = (body: string) => `"${Bun.hash(body).toString(36)}"`;
const ETAGS = new Map([...Object.entries(FILES).map(([name, file]) => [name, etag(file.body)] as const), ["", etag(PAGE)]]);

function fileResponse(request: Request, body: string, type: string, tag: string): Response {
  const headers = {
    "content-type": type,
    etag: tag,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
    // Only this page's own files run; data is drawn with DOM calls, never parsed as HTML.
    "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  };
  if (request.headers.get("if-none-match") === tag) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

/** The page for a view path, a file under /assets/, or undefined (the server answers 404). GET and HEAD only. */
export function serveBrowser(request: Request): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const path = new URL(request.url).pathname;
  if (path.startsWith("/assets/")) {
    const name = path.slice("/assets/".length);
    const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
    return file && fileResponse(request, file.body, file.type, ETAGS.get(name)!);
  }
  return VIEW_PATHS.some((view) => view.test(path)) ? fileResponse(request, PAGE, "text/html; charset=utf-8", ETAGS.get("")!) : undefined;
}
