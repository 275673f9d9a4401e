/** Finds the route of a method and path in the route table: its path parameters, or why none fits (404 / 405). */
import { GllamError } from "../../gllam/types.ts";
import type { Method, Route } from "./routes.ts";

export type RouteMatch = { route: Route; params: Record<string, string> };

type Compiled = { route: Route; pattern: RegExp; names: string[] };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `/v1/nodes/{id}/facts` as a regular expression with one group per parameter (one whole segment each). */
export function compilePath(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split("/")
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return escapeRegExp(segment);
      names.push(param[1]!);
      return "([^/]+)";
    })
    .join("/");
  return { pattern: new RegExp(`^${source}$`), names };
}

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new GllamError("E_BAD_INPUT", `path segment "${text}" is not valid percent-encoding`);
  }
}

export type Router = {
  /** The route for method and path; undefined when no route has the path; E_METHOD_NOT_ALLOWED when others' methods do. */
  match(method: string, path: string): RouteMatch | undefined;
};

export function createRouter(routes: readonly Route[]): Router {
  const compiled: Compiled[] = routes.map((route) => ({ route, ...compilePath(route.path) }));
  return {
    match(method, path) {
      const allowed: Method[] = [];
      for (const { route, pattern, names } of compiled) {
        const found = pattern.exec(path);
        if (!found) continue;
        if (route.method !== method) {
          allowed.push(route.method);
          continue;
        }
        return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeParam(found[i + 1]!)])) };
      }
      if (allowed.length === 0) return undefined;
      throw new MethodNotAllowed(method, path, allowed);
    },
  };
}

/** 405 with the methods the path does serve (the response's Allow header). */
export class MethodNotAllowed extends GllamError {
  readonly allowed: readonly Method[];

  constructor(method: string, path: string, allowed: readonly Method[]) {
    super("E_METHOD_NOT_ALLOWED", `${method} ${path} is not served; ${path} takes ${allowed.join(", ")}`);
    this.allowed = allowed;
  }
}
