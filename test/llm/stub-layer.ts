/** LLM layers for tests: roles pointed at a server (the stub) with the settings a test needs. */
import * as v from "valibot";
import { LlmConfigSchema } from "../../src/config/prompts.ts";
import { LlmLayer } from "../../src/llm/client.ts";
import { chatUrlOf, type LlmEndpoint, type LlmRole } from "../../src/llm/endpoints.ts";

export type RoleSpec = { model?: string; headers?: Record<string, string>; server?: string };

const endpoint = (role: LlmRole, url: string, spec: RoleSpec): LlmEndpoint => {
  const server = spec.server ?? url;
  return { role, server, chatUrl: chatUrlOf(server), model: spec.model ?? "stub-model", headers: spec.headers ?? {} };
};

/**
 * A layer whose STRONG role (and FAST, when `fast` is given) talks to `url`; retries are quick
 * unless the config says otherwise.
 */
export function layerOn(url: string, options: { strong?: RoleSpec; fast?: RoleSpec; config?: v.InferInput<typeof LlmConfigSchema> } = {}): LlmLayer {
  return new LlmLayer(
    { strong: endpoint("strong", url, options.strong ?? {}), fast: options.fast ? endpoint("fast", url, options.fast) : undefined },
    v.parse(LlmConfigSchema, { retry_base_ms: 1, max_retries: 1, ...options.config }),
  );
}

/** No LLM at all: every feature answers with its rule-based default. */
export const noLlm = () => new LlmLayer({ strong: undefined, fast: undefined });
