import { expect, test } from "bun:test";
import { serveBrowser } from "../../../src/server/browser/assets.ts";

const get = (path: string, headers: Record<string, string> = {}, method = "GET") => serveBrowser(new Request(`http://127.0.0.1:7411${path}`, { method, headers }));

test("every view's path answers the page; its files are under /assets/", async () => {
  for (const path of ["/", "/node/caddy", "/node/lab%2Fcaddy", "/graph/caddy", "/contradictions", "/timeline", "/session/ops-1", "/status"]) {
    const response = get(path)!;
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
  }
  const page = await get("/?q=web+server")!.text();
  expect(page).toContain('<script type="module" src="/assets/app.js"></script>');
  // Every module the page preloads is served, and every module a module imports is one of them.
  const scripts = [...page.matchAll(/href="\/assets\/([\w-]+\.js)"/g)].map((m) => m[1]!);
  for (const name of scripts) {
    const response = get(`/assets/${name}`)!;
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    for (const [, imported] of (await response.text()).matchAll(/from "\.\/([\w-]+\.js)"/g)) expect(scripts).toContain(imported!);
  }
  expect(get("/assets/style.css")!.headers.get("content-type")).toBe("text/css; charset=utf-8");
});

test("a file the browser holds is not sent again (ETag, 304); HEAD has no body", async () => {
  const first = get("/assets/app.js")!;
  const tag = first.headers.get("etag")!;
  expect(tag).toMatch(/^".+"$/);
  const again = get("/assets/app.js", { "if-none-match": tag })!;
  expect(again.status).toBe(304);
  expect(await again.text()).toBe("");
  expect(await get("/", {}, "HEAD")!.text()).toBe("");
});

test("anything else is left to the server (404): other paths, other methods, no directory walking", () => {
  for (const path of ["/nope", "/node", "/node/a/b", "/assets/", "/assets/../server.ts", "/assets/missing.js", "/assets/toString"]) expect(get(path)).toBeUndefined();
  expect(get("/", {}, "POST")).toBeUndefined();
});
