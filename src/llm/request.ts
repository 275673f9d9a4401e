/**
 * One POST to an OpenAI-compatible server with ofetch: a timeout, and retries with exponential
 * backoff and jitter on 429, 5xx and dropped connections, honouring Retry-After. Failures that
 * retrying cannot cure become one clear coded error (unreachable, auth, model, response).
 */
import { FetchError, ofetch } from "ofetch";
import { describeError, GllamError } from "../engine/errors.ts";
import { backoffDelay, isRetryableConnectionError, isRetryableStatus, parseRetryAfter } from "./backoff.ts";
import type { LlmEndpoint } from "./endpoints.ts";

export type RequestPolicy = { timeoutMs: number; maxRetries: number; retryBaseMs: number };

/** A non-2xx answer that retrying did not cure: its status and the server's own message. */
export type HttpFailure = { status: number; message: string };

export type PostResult = { ok: true; data: unknown; retries: number } | { ok: false; failure: HttpFailure; retries: number };

/** The server's message in an error body: OpenAI's {error: {message}}, Ollama's {error: "..."}, or the text. */
export function errorMessageOf(body: unknown): string {
  if (typeof body === "string") return body.trim().slice(0, 300);
  if (body && typeof body === "object") {
    const error = (body as { error?: unknown; message?: unknown }).error ?? (body as { message?: unknown }).message;
    if (typeof error === "string") return error;
    if (error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string") return (error as { message: string }).message;
  }
  return JSON.stringify(body ?? "").slice(0, 300);
}

const causeOf = (error: unknown): { code?: string; name?: string } => {
  const cause = error instanceof FetchError ? (error.cause as { code?: string; name?: string } | undefined) : undefined;
  return cause ?? {};
};

/** Posts `body` to the endpoint's chat URL; resolves with the JSON answer or the HTTP failure left after retries. */
export async function postChat(endpoint: LlmEndpoint, body: unknown, policy: RequestPolicy): Promise<PostResult> {
  for (let attempt = 0; ; attempt++) {
    let retryAfterMs: number | undefined;
    try {
      const response = await ofetch.raw(endpoint.chatUrl, {
        method: "POST",
        body: body as Record<string, unknown>,
        headers: endpoint.headers,
        timeout: policy.timeoutMs,
        retry: 0,
        ignoreResponseError: true,
        responseType: "text",
      });
      const text = response._data ?? "";
      if (response.status >= 200 && response.status < 300) {
        try {
          return { ok: true, data: JSON.parse(text), retries: attempt };
        } catch {
          // A body cut off mid-way is as good as a dropped connection: try again.
          if (attempt >= policy.maxRetries) throw new GllamError("E_LLM_RESPONSE", `${endpoint.server} answered with an unreadable JSON body (${text.length} bytes)`);
        }
      } else {
        const failure = { status: response.status, message: errorMessageOf(parseMaybeJson(text)) };
        if (!isRetryableStatus(response.status) || attempt >= policy.maxRetries) return { ok: false, failure, retries: attempt };
        retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
      }
    } catch (error) {
      if (error instanceof GllamError) throw error;
      const cause = causeOf(error);
      if (cause.name === "TimeoutError" || cause.name === "AbortError") {
        throw new GllamError("E_LLM_UNREACHABLE", `${endpoint.server} did not answer within ${Math.round(policy.timeoutMs / 1000)} s`, { cause: error });
      }
      if (!isRetryableConnectionError(cause.code) || attempt >= policy.maxRetries) {
        throw new GllamError("E_LLM_UNREACHABLE", `cannot reach LLM server ${endpoint.server}: ${cause.code ?? describeError(error)}`, { cause: error });
      }
    }
    await Bun.sleep(backoffDelay(attempt, policy.retryBaseMs, retryAfterMs));
  }
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Whether a 400/422 says the server does not take the response_format asked for (so step down, do not fail). */
export const refusesResponseFormat = (failure: HttpFailure): boolean =>
  (failure.status === 400 || failure.status === 422 || failure.status === 501) && /response_format|json_schema|json_object|grammar|schema/i.test(failure.message);

/** The coded error for an HTTP failure: one line naming the server, the model and what it said. */
export function httpFailureError(endpoint: LlmEndpoint, failure: HttpFailure): GllamError {
  const said = `${endpoint.server} answered ${failure.status}: ${failure.message}`;
  if (failure.status === 401 || failure.status === 403) return new GllamError("E_LLM_AUTH", `LLM server refused the credentials (${said}); check $OPENROUTER_API_KEY or $LLM_API_KEY`);
  if (failure.status === 404 && /model/i.test(failure.message)) return new GllamError("E_LLM_MODEL", `model ${JSON.stringify(endpoint.model)} is not served by ${endpoint.server} (${failure.message})`);
  if (failure.status === 404) return new GllamError("E_LLM_RESPONSE", `${endpoint.chatUrl} is not an OpenAI-compatible chat endpoint (${said})`);
  if ((failure.status === 400 || failure.status === 422) && /model/i.test(failure.message) && /not (found|exist|available|a valid)|unknown|invalid/i.test(failure.message)) {
    return new GllamError("E_LLM_MODEL", `model ${JSON.stringify(endpoint.model)} is not served by ${endpoint.server} (${failure.message})`);
  }
  return new GllamError("E_LLM_RESPONSE", `LLM request failed: ${said}`);
}
