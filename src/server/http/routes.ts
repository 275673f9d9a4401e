/**
 * The HTTP API's route table: one entry per route, each naming the operation it calls and where
 * the operation's input fields come from (path parameters, the query string, the JSON body). The
 * operation's valibot schema parses every input and gives /openapi.json its schemas, so adding a
 * route is adding one entry here. /health and /openapi.json are the server's own (server.ts).
 */
import type { Operation } from "../../gllam/operation.ts";
import {
  addFact,
  ask,
  context,
  contradictions,
  episodeDensity,
  facts,
  factHistory,
  forget,
  forgetDryRun,
  lastSleepCycle,
  neighbourhood,
  nodeHistory,
  path,
  plan,
  recall,
  remember,
  resolveContradiction,
  sessionEpisodes,
  sessions,
  sourceTrust,
  stats,
} from "../../gllam/operations.ts";

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
  operation: forget,
  params: { id: kind },
  query: ["scope"],
  summary: `Forget a ${kind} and everything derived only from it (one transaction, no copy left in the file)`,
});

export const ROUTES: readonly Route[] = [
  { method: "POST", path: "/v1/episodes", operation: remember, body: { rename: { episodes: "turns" } } },
  { method: "POST", path: "/v1/recall", operation: recall, body: {} },
  { method: "POST", path: "/v1/context", operation: context, body: {} },
  { method: "POST", path: "/v1/ask", operation: ask, body: {} },
  { method: "POST", path: "/v1/facts", operation: addFact, body: {} },
  { method: "GET", path: "/v1/nodes/{id}/facts", operation: facts, params: { id: "node" }, query: ["as_of", "known_at", "scope"] },
  { method: "GET", path: "/v1/nodes/{id}/history", operation: factHistory, params: { id: "subject" }, query: ["relationship", "scope"] },
  forgetRoute("episode", "episodes"),
  forgetRoute("session", "sessions"),
  forgetRoute("node", "nodes"),
  forgetRoute("link", "links"),
  forgetRoute("source", "sources"),
  // What the memory browser reads (and any script can): src/server/browser/.
  { method: "GET", path: "/v1/nodes/{id}/histories", operation: nodeHistory, params: { id: "node" }, query: ["scope"] },
  { method: "GET", path: "/v1/nodes/{id}/neighbourhood", operation: neighbourhood, params: { id: "node" }, query: ["hops", "as_of", "max_nodes", "scope"] },
  { method: "GET", path: "/v1/path", operation: path, query: ["from", "to", "max_hops", "as_of", "scope"] },
  { method: "GET", path: "/v1/contradictions", operation: contradictions, query: ["status", "limit", "scope"] },
  { method: "POST", path: "/v1/contradictions/{id}/resolve", operation: resolveContradiction, params: { id: "contradiction" }, body: {} },
  { method: "GET", path: "/v1/sources/{id}/trust", operation: sourceTrust, params: { id: "source" }, query: ["scope"] },
  { method: "GET", path: "/v1/timeline", operation: episodeDensity, query: ["start", "end", "scope"] },
  { method: "GET", path: "/v1/sessions", operation: sessions, query: ["scope"] },
  { method: "GET", path: "/v1/sleep/last", operation: lastSleepCycle, query: ["scope"] },
  { method: "GET", path: "/v1/sessions/{id}/episodes", operation: sessionEpisodes, params: { id: "session" }, query: ["limit", "scope"] },
  { method: "POST", path: "/v1/forget/dry-run", operation: forgetDryRun, body: {}, summary: "What forgetting a target (the body: one of node, link, source, episode, session, and scope) would remove; nothing changes" },
  { method: "POST", path: "/v1/plan", operation: plan, body: {} },
  { method: "GET", path: "/v1/stats", operation: stats },
];
