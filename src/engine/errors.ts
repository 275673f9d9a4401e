/** Every failure GLLAM reports on purpose carries one of these codes. */
export const ERROR_CODES = [
  "E_BAD_INPUT", // malformed argument, query, file or record
  "E_NOT_FOUND", // a named node, file or database does not exist
  "E_CONFLICT", // an id the caller chose is taken (by something the caller may not see)
  "E_NOT_SQLITE", // the file exists but is not a SQLite database
  "E_SCHEMA_NEWER", // the database was written by a newer GLLAM
  "E_CANNOT_OPEN", // the database file or its folder cannot be opened or created
  "E_READ_ONLY", // a write was attempted through a read-only handle
  "E_BUSY", // another process kept the write lock longer than the busy timeout
  "E_EXTENSION", // sqlite-vec could not be loaded
  "E_EMBEDDER_UNREACHABLE", // an embeddings server did not answer
  "E_EMBEDDER_RESPONSE", // an embeddings server answered with something unusable
  "E_EMBEDDER", // the bundled model failed
  "E_EMBEDDING_DRIFT", // stored vectors come from another model or dimension
  "E_TAXONOMY_CYCLE", // an is_a / subclass_of link would make a category its own ancestor
  "E_CONFIG", // configuration file or environment is invalid
  "E_USAGE", // unknown command or flag
  "E_PLANNER", // a planner failed, crashed or returned an invalid plan
  "E_LLM_UNREACHABLE", // an LLM server did not answer (connection refused, DNS, timeout after retries)
  "E_LLM_AUTH", // an LLM server refused the credentials (401/403)
  "E_LLM_MODEL", // an LLM server does not serve the model asked for
  "E_LLM_RESPONSE", // an LLM server answered with an error or an unusable body
  "E_LLM_BAD_OUTPUT", // the model's output did not match the schema, even after one repair round
  "E_UNAUTHORIZED", // an HTTP request without the bearer token the server requires
  "E_TOO_LARGE", // a request body over the server's limit
  "E_METHOD_NOT_ALLOWED", // an HTTP route asked with a method it does not serve
  "E_INTERNAL", // an unexpected failure (a bug): reported, never swallowed
] as const;

export type GllamErrorCode = (typeof ERROR_CODES)[number];

export class GllamError extends Error {
  readonly code: GllamErrorCode;

  constructor(code: GllamErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GllamError";
    this.code = code;
  }
}

export function isGllamError(error: unknown, code?: GllamErrorCode): error is GllamError {
  return error instanceof GllamError && (code === undefined || error.code === code);
}

/** The message of any thrown value, for wrapping foreign errors. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
