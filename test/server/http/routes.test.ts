/** Every route of `gllam serve`, driven with real requests against the compiled binary. */
import { afterAll, describe, expect, test } from "bun:test";
import { call, startServe } from "./serve-process.ts";

const served = await startServe(["--db", "memory.db", "--embedder", "static", "--workers", "0"]);
afterAll(() => served.stop());

const PDDL_DOMAIN = `(define (domain switch) (:requirements :strips)
  (:predicates (off) (on))
  (:action flip :parameters () :precondition (off) :effect (and (on) (not (off)))))`;
const PDDL_PROBLEM = `(define (problem one) (:domain switch) (:init (off)) (:goal (on)))`;

describe("gllam serve routes", () => {
  test("GET /health answers ok", async () => {
    let reply = await call(served, "GET", "/health");
    // Nothing to warm up in a memory this small: it is done within moments of the start.
    for (let i = 0; i < 100 && reply.json?.warmingUp !== false; i++) reply = (await Bun.sleep(50), await call(served, "GET", "/health"));
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ status: "ok", warmingUp: false });
  });

  test("POST /v1/episodes stores turns (once each, given their seq), then POST /v1/recall finds them as recall --json does", async () => {
    const episodes = [
      { session_id: "ops-1", speaker: "alice", seq: 0, content: "We moved the web server to Caddy last spring", timestamp: "2025-04-02T10:00:00Z" },
      { session_id: "ops-1", speaker: "bob", seq: 1, content: "Caddy renews the TLS certificates by itself" },
    ];
    const first = await call(served, "POST", "/v1/episodes", { episodes });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ inserted: 2, duplicates: 0 });
    const again = await call(served, "POST", "/v1/episodes", { episodes });
    expect(again.json).toMatchObject({ inserted: 0, duplicates: 2 });

    const recalled = await call(served, "POST", "/v1/recall", { query: "TLS certificates", episodes: 5 });
    expect(recalled.status).toBe(200);
    expect(recalled.json.query).toBe("TLS certificates");
    expect(recalled.json.episodes.map((e: { content: string }) => e.content)).toContain("Caddy renews the TLS certificates by itself");

    const markdown = await call(served, "POST", "/v1/recall", { query: "TLS certificates" }, { accept: "text/markdown" });
    expect(markdown.headers.get("content-type")).toContain("text/markdown");
    expect(markdown.text).toContain("Caddy renews the TLS certificates by itself");

    const context = await call(served, "POST", "/v1/context", { query: "who renews the TLS certificates?", budget: 200 });
    expect(context.status).toBe(200);
    expect(context.json.markdown).toContain("Caddy renews the TLS certificates by itself");
    expect(context.json.tokens).toBeLessThanOrEqual(200);
    // No LLM is configured: ask says how to configure one instead of failing obscurely.
    const asked = await call(served, "POST", "/v1/ask", { question: "who renews the TLS certificates?" });
    expect(asked.json.error.code).toBe("E_CONFIG");
  });

  test("POST /v1/facts records a fact; GET /v1/nodes/{id}/facts and /history read it, with as_of and known_at", async () => {
    const added = await call(served, "POST", "/v1/facts", { subject: "Caddy", relationship: "runs_on", object: "web-01", valid_from: "2025-01-01" });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ action: "inserted", relationship: "runs_on" });

    const now = await call(served, "GET", "/v1/nodes/Caddy/facts");
    expect(now.status).toBe(200);
    expect(now.json.node.name).toBe("Caddy");
    expect(now.json.facts.map((f: { otherName: string }) => f.otherName)).toEqual(["web-01"]);

    const before = await call(served, "GET", "/v1/nodes/Caddy/facts?as_of=2024-06-01");
    expect(before.json.facts).toEqual([]);
    const knownLongAgo = await call(served, "GET", `/v1/nodes/caddy/facts?known_at=${Date.parse("2020-01-01")}`);
    expect(knownLongAgo.status).toBe(200);
    expect(knownLongAgo.json.facts).toEqual([]);

    const history = await call(served, "GET", "/v1/nodes/Caddy/history?relationship=runs_on");
    expect(history.status).toBe(200);
    expect(history.json.versions).toHaveLength(1);
    expect(history.json.versions[0].targetName).toBe("web-01");
  });

  test("scopes keep memories apart", async () => {
    await call(served, "POST", "/v1/facts", { subject: "Nginx", relationship: "runs_on", object: "web-02", scope: "team-b" });
    expect((await call(served, "GET", "/v1/nodes/Nginx/facts?scope=team-b")).status).toBe(200);
    expect((await call(served, "GET", "/v1/nodes/Nginx/facts")).json.error.code).toBe("E_NOT_FOUND");
  });

  test("DELETE routes forget an episode, a session, a node, a link and a source", async () => {
    const stored = await call(served, "POST", "/v1/episodes", {
      episodes: [
        { session_id: "gone-1", speaker: "carol", content: "a turn to forget" },
        { session_id: "gone-2", speaker: "carol", content: "a session to forget" },
      ],
    });
    const [episodeId] = stored.json.ids;
    const episode = await call(served, "DELETE", `/v1/episodes/${episodeId}`);
    expect(episode.status).toBe(200);
    expect(episode.json.removed.episodes).toEqual([episodeId]);
    expect((await call(served, "DELETE", `/v1/episodes/${episodeId}`)).status).toBe(404);

    const session = await call(served, "DELETE", "/v1/sessions/gone-2");
    expect(session.json.removed.sessions).toEqual(["gone-2"]);

    const fact = await call(served, "POST", "/v1/facts", {
      subject: "Traefik",
      relationship: "replaces",
      object: "HAProxy",
      source: { handle: "dave", doc_type: "slack" },
    });
    const link = await call(served, "DELETE", `/v1/links/${fact.json.linkId}`);
    expect(link.json.removed.links).toEqual([fact.json.linkId]);
    const source = await call(served, "DELETE", "/v1/sources/dave");
    expect(source.status).toBe(200);
    expect(source.json.removed.sources).toHaveLength(1);
    const node = await call(served, "DELETE", "/v1/nodes/Traefik");
    expect(node.json.removed.nodes).toEqual(["traefik"]);
    expect((await call(served, "GET", "/v1/nodes/Traefik/facts")).status).toBe(404);
  });

  test("POST /v1/plan solves a PDDL task given as text", async () => {
    const reply = await call(served, "POST", "/v1/plan", { domain: PDDL_DOMAIN, problem: PDDL_PROBLEM });
    expect(reply.status).toBe(200);
    expect(reply.json.status).toBe("solved");
    expect(reply.json.plan).toHaveLength(1);
  });

  test("GET /v1/stats counts what the requests stored", async () => {
    const reply = await call(served, "GET", "/v1/stats");
    expect(reply.status).toBe(200);
    expect(reply.json.tables.episodes).toBe(2);
    expect(reply.json.path).toEndWith("memory.db");
  });

  test("GET /openapi.json describes every route with schemas from the operations", async () => {
    const reply = await call(served, "GET", "/openapi.json");
    expect(reply.status).toBe(200);
    expect(reply.json.openapi).toBe("3.1.0");
    const paths = reply.json.paths;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(["/v1/episodes", "/v1/recall", "/v1/facts", "/v1/nodes/{id}/facts", "/v1/nodes/{id}/history", "/v1/plan", "/v1/stats", "/health"]),
    );
    const body = paths["/v1/episodes"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["episodes"]);
    expect(body.properties.episodes.items.required).toEqual(["session_id", "content"]);
    expect(paths["/v1/nodes/{id}/facts"].get.parameters.map((p: { name: string }) => p.name)).toEqual(["id", "as_of", "known_at", "scope"]);
    expect(paths["/v1/episodes/{id}"].delete.parameters[0].schema.type).toBe("integer");
  });
});
