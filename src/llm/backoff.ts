/** When to retry a failed LLM request: pure, so the policy tests without a server. */

/** Statuses worth another try: rate limits and server errors (a 501 never gets better). */
export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || (status >= 500 && status !== 501);

/** Errors of a request that never got an answer but might next time (the connection dropped mid-way). */
export const isRetryableConnectionError = (code: string | undefined): boolean =>
  code === "ECONNRESET" || code === "ConnectionClosed" || code === "EPIPE" || code === "UND_ERR_SOCKET";

/** Seconds or an HTTP date, as Retry-After says; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Milliseconds before retry `attempt` (0-based): Retry-After when the server gave one (capped at
 * `maxMs`), else base * 2^attempt with full jitter so many clients do not retry in step.
 */
export function backoffDelay(attempt: number, baseMs: number, retryAfterMs: number | undefined, random = Math.random, maxMs = 120_000): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxMs);
  const ceiling = Math.min(baseMs * 2 ** attempt, maxMs);
  return ceiling / 2 + random() * (ceiling / 2);
}
