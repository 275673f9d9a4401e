/**
 * The HTTP status of every error code, in one typed table: a new code in src/engine/errors.ts does
 * not typecheck until it gets a status here. Every error goes out as {"error": {"code", "message"}}.
 */
import { describeError, GllamError, type GllamErrorCode } from "../../gllam/types.ts";

export const HTTP_STATUS: Record<GllamErrorCode, number> = {
  E_BAD_INPUT: 400,
  E_USAGE: 400,
  E_UNAUTHORIZED: 401,
  E_NOT_FOUND: 404,
  E_METHOD_NOT_ALLOWED: 405,
  E_CONFLICT: 409,
  // The stored vectors come from another model: the request is fine, the memory needs `gllam reembed`.
  E_EMBEDDING_DRIFT: 409,
  E_TAXONOMY_CYCLE: 409,
  E_TOO_LARGE: 413,
  E_INTERNAL: 500,
  E_NOT_SQLITE: 500,
  E_SCHEMA_NEWER: 500,
  E_CANNOT_OPEN: 500,
  E_READ_ONLY: 500,
  E_EXTENSION: 500,
  E_EMBEDDER: 500,
  E_CONFIG: 500,
  E_PLANNER: 500,
  // Another service answered badly (502) or not at all / not now (503).
  E_EMBEDDER_RESPONSE: 502,
  E_LLM_AUTH: 502,
  E_LLM_MODEL: 502,
  E_LLM_RESPONSE: 502,
  E_LLM_BAD_OUTPUT: 502,
  E_EMBEDDER_UNREACHABLE: 503,
  E_LLM_UNREACHABLE: 503,
  E_BUSY: 503,
};

export type ErrorBody = { error: { code: GllamErrorCode; message: string } };

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/**
 * Any thrown value as the error response: a GllamError with its code's status; anything else is a
 * bug, logged to stderr with its stack and answered 500 E_INTERNAL without the details.
 */
export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  if (error instanceof GllamError) return jsonResponse({ error: { code: error.code, message: error.message } } satisfies ErrorBody, HTTP_STATUS[error.code], headers);
  process.stderr.write(`gllam serve: unexpected error: ${error instanceof Error && error.stack ? error.stack : describeError(error)}\n`);
  return jsonResponse({ error: { code: "E_INTERNAL", message: "unexpected server error (logged on the server)" } } satisfies ErrorBody, 500, headers);
}
