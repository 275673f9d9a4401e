/**
 * The HTTP API's route table: one entry per route, each naming the operation it calls and where
 * the operation's input fields come from (path parameters, the query string, the JSON body). The
 * operation's valibot schema parses every input and gives /openapi.json its schemas, so adding a
 * route is adding one entry here. /health and /openapi.json are the server's own (server.ts).
 */
import type { Operation } from "../../gllam/operation.ts";
import * as op from "../../gllam/operations.ts";

export type Method = "GET" | "POST" | "DELETE";

export type Route = {
  method: Method;
  /** The path, with `{name}` for a path parameter: /v1/nodes/{id}/facts. */
  path: string;
  // Any operation: each route's input is parsed by its own operation's schema at run time.
  operation: Operation<any, any>;
  /** Each path parameter's operation input field: { id: "node" }. */
  params?: Readonly<Record<string, string>>;
  /** Input fields read from the query string (?as_of=...&scope=...). */
  query?: readonly string[];
  /** The JSON body is the input; `rename` gives input fields another name on the wire ({ episodes: "turns" }). */
  body?: { rename?: Readonly<Record<string, string>> };
  /** What the route does, when it says more than its operation's summary. */
  summary?: string;
};

const forgetRoute = (kind: "node" | "link" | "source" | "episode" | "session", plural: string): Route => ({
  method: "DELETE",
  path: `/v1/${plural}/{id}`,
  operation: op.forget,
  params: { id: kind },
  query: ["scope"],
  summary: `Forget a ${kind} and everything derived only from it (one transaction, no copy left in the file)`,
});

export const ROUTES: readonly Route[] = [
  { method: "POST", path: "/v1/episodes", operation: op.remember, body: { rename: { episodes: "turns" } } },
  { method: "POST", path: "/v1/recall", operation: op.recall, body: {} },
  { method: "POST", path: "/v1/context", operation: op.context, body: {} },
  { method: "POST", path: "/v1/ask", operation: op.ask, body: {} },
  { method: "POST", path: "/v1/facts", operation: op.addFact, body: {} },
  { method: "GET", path: "/v1/nodes/{id}/facts", operation: op.facts, params: { id: "node" }, query: ["as_of", "known_at", "scope"] },
  { method: "GET", path: "/v1/nodes/{id}/history", operation: op.factHistory, params: { id: "subject" }, query: ["relationship", "scope"] },
  forgetRoute("episode", "episodes"),
  forgetRoute("session", "sessions"),
  forgetRoute("node", "nodes"),
  forgetRoute("link", "links"),
  forgetRoute("source", "sources"),
  // What the memory browser reads (and any script can): src/server/browser/.
  { method: "GET", path: "/v1/nodes/{id}/histories", operation: op.nodeHistory, params: { id: "node" }, query: ["scope"] },
  { method: "GET", path: "/v1/nodes/{id}/neighbourhood", operation: op.neighbourhood, params: { id: "node" }, query: ["hops", "as_of", "max_nodes", "scope"] },
  { method: "GET", path: "/v1/path", operation: op.path, query: ["from", "to", "max_hops", "as_of", "scope"] },
  { method: "GET", path: "/v1/contradictions", operation: op.contradictions, query: ["status", "limit", "scope"] },
  { method: "POST", path: "/v1/contradictions/{id}/resolve", operation: op.resolveContradiction, params: { id: "contradiction" }, body: {} },
  { method: "GET", path: "/v1/sources/{id}/trust", operation: op.sourceTrust, params: { id: "source" }, query: ["scope"] },
  { method: "GET", path: "/v1/timeline", operation: op.episodeDensity, query: ["start", "end", "scope"] },
  { method: "GET", path: "/v1/sessions", operation: op.sessions, query: ["scope"] },
  { method: "GET", path: "/v1/sleep/last", operation: op.lastSleepCycle, query: ["scope"] },
  { method: "GET", path: "/v1/sessions/{id}/episodes", operation: op.sessionEpisodes, params: { id: "session" }, query: ["limit", "scope"] },
  { method: "POST", path: "/v1/forget/dry-run", operation: op.forgetDryRun, body: {}, summary: "What forgetting a target (the body: one of node, link, source, episode, session, and scope) would remove; nothing changes" },
  { method: "POST", path: "/v1/plan", operation: op.plan, body: {} },
  { method: "GET", path: "/v1/stats", operation: op.stats },
];
