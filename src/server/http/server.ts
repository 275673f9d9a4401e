/**
 * `gllam serve`'s HTTP server: one open memory, the route table, JSON in and out. A request that
 * fails answers {"error": {"code", "message"}} with its code's status and never stops the server.
 * Paths outside /v1/ that no route takes go to `fallback` (the hook for the memory browser's
 * static assets at `/`), else 404.
 */
import type { Server } from "bun";
import type { Gllam } from "../../gllam/gllam.ts";
import { GllamError } from "../../gllam/types.ts";
import { authorize } from "./auth.ts";
import { parseRouteInput, readBody } from "./input.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { createRouter, MethodNotAllowed } from "./router.ts";
import { ROUTES, type Route } from "./routes.ts";
import { errorResponse, jsonResponse } from "./status.ts";

/** Answers what no route takes (outside /v1/): a Response, or undefined for 404. Not behind the token: static assets only. */
export type Fallback = (request: Request) => Response | undefined | Promise<Response | undefined>;

export type HttpServerOptions = {
  host: string;
  /** 0 picks a free port (server.port says which). */
  port: number;
  /** Every route but /health then needs `Authorization: Bearer <token>`. */
  token?: string;
  maxBodyBytes: number;
  fallback?: Fallback;
  routes?: readonly Route[];
  /** Whether the memory still warms up (Gllam.prewarm): GET /health says so, for a readiness check. */
  warmingUp?: () => boolean;
};

/** Whether the path belongs to the API (behind the token, answered with JSON errors). */
const isApiPath = (path: string) => path.startsWith("/v1/") || path === "/v1" || path === "/openapi.json";

/** The operation's result: JSON (the CLI's --json), or its Markdown when the client asks for text/markdown. */
function resultResponse(route: Route, result: unknown, request: Request): Response {
  if (request.headers.get("accept")?.includes("text/markdown")) {
    return new Response(route.operation.toText(result), { headers: { "content-type": "text/markdown; charset=utf-8" } });
  }
  return jsonResponse(result ?? null);
}

export function createRequestHandler(gllam: Gllam, options: HttpServerOptions): (request: Request) => Promise<Response> {
  const routes = options.routes ?? ROUTES;
  const router = createRouter(routes);
  const openApi = buildOpenApiDocument(routes, { secured: options.token !== undefined });

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === "/health") {
      if (request.method !== "GET" && request.method !== "HEAD") throw new MethodNotAllowed(request.method, path, ["GET"]);
      return jsonResponse({ status: "ok", warmingUp: options.warmingUp?.() ?? false });
    }
    if (!isApiPath(path)) {
      const response = await options.fallback?.(request);
      if (response) return response;
      throw new GllamError("E_NOT_FOUND", `no route ${path}`);
    }
    authorize(request, options.token);
    if (path === "/openapi.json") {
      if (request.method !== "GET") throw new MethodNotAllowed(request.method, path, ["GET"]);
      return jsonResponse(openApi);
    }
    const match = router.match(request.method, path);
    if (!match) throw new GllamError("E_NOT_FOUND", `no route ${path} (GET /openapi.json lists them)`);
    const body = match.route.body ? await readBody(request, options.maxBodyBytes) : "";
    const input = parseRouteInput(match.route, { params: match.params, query: url.searchParams, body });
    return resultResponse(match.route, await match.route.operation.run(gllam, input), request);
  }

  return async (request) => {
    try {
      return await answer(request);
    } catch (error) {
      return errorResponse(error, error instanceof MethodNotAllowed ? { allow: error.allowed.join(", ") } : {});
    }
  };
}

/** Starts serving (the memory stays open until the caller stops the server and closes it). */
export function startHttpServer(gllam: Gllam, options: HttpServerOptions): Server<undefined> {
  const handle = createRequestHandler(gllam, options);
  try {
    return listen(handle, options);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "EADDRINUSE") throw new GllamError("E_CONFIG", `${options.host}:${options.port} is in use (another gllam serve?); --port picks another (0: any free one)`);
    if (code === "EADDRNOTAVAIL") throw new GllamError("E_CONFIG", `${options.host} is not an address of this machine (--host)`);
    throw error;
  }
}

function listen(handle: (request: Request) => Promise<Response>, options: HttpServerOptions): Server<undefined> {
  return Bun.serve({
    hostname: options.host,
    port: options.port,
    // The handler enforces the limit itself, from Content-Length or while streaming, so every 413
    // is JSON: Bun's own cap would answer a declared large body with a bare 413 before it.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Bun's longest: a plan may think for minutes without sending a byte (Bun's default is 10 s).
    idleTimeout: 255,
    fetch: handle,
    error: (error) => errorResponse(error),
  });
}
