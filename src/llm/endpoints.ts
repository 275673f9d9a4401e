/**
 * Which OpenAI-compatible server and model each role talks to. The seed's two roles: STRONG
 * (extraction, answers) and FAST (classification, judges). Each setting comes from the CLI flag
 * (--llm-server / --llm-model, both roles), else the role's environment variables, else the config
 * file's `llm` entry; a role left unset borrows the other one, and neither set means no LLM (every
 * LLM feature then says it used its rule-based fallback). Pure: no network here.
 */
import type { GllamEnv } from "../config/env.ts";
import type { LlmConfig } from "../config/prompts.ts";
import { GllamError } from "../engine/errors.ts";

export const LLM_ROLES = ["strong", "fast"] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

export const OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1";
/** OpenRouter's attribution headers (https://openrouter.ai/docs/api-reference/overview#headers). */
export const OPENROUTER_HEADERS = { "HTTP-Referer": "https://github.com/gllam/gllam", "X-Title": "GLLAM" } as const;

export type LlmEndpoint = {
  role: LlmRole;
  /** The server's base URL as given (http://127.0.0.1:8080, https://openrouter.ai/api/v1). */
  server: string;
  /** Where chat completions are posted: <server>/v1/chat/completions unless the base already ends in /v1. */
  chatUrl: string;
  /** Sent as `model`; llama.cpp ignores it, so "default" is fine there. */
  model: string;
  /** Extra headers (Authorization, OpenRouter attribution). */
  headers: Record<string, string>;
};

/** What the faces give (flags), merged over the environment and config. */
export type LlmSettings = { llmServer?: string; llmModel?: string };

export const chatUrlOf = (server: string): string => {
  const base = server.replace(/\/+$/, "");
  if (/\/chat\/completions$/.test(base)) return base;
  return /\/v\d+$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
};

const isOpenRouter = (server: string): boolean => URL.canParse(server) && new URL(server).hostname.endsWith("openrouter.ai");

/** The credentials for a server: OpenRouter's key and headers on openrouter.ai, else $LLM_API_KEY when set. */
function headersFor(server: string, env: GllamEnv): Record<string, string> {
  if (isOpenRouter(server)) {
    if (!env.OPENROUTER_API_KEY) throw new GllamError("E_LLM_AUTH", `${server} needs $OPENROUTER_API_KEY`);
    return { Authorization: `Bearer ${env.OPENROUTER_API_KEY}`, ...OPENROUTER_HEADERS };
  }
  return env.LLM_API_KEY ? { Authorization: `Bearer ${env.LLM_API_KEY}` } : {};
}

type Partial = { server?: string; model?: string };

function roleSetting(role: LlmRole, settings: LlmSettings, env: GllamEnv, config: LlmConfig | undefined): Partial {
  const fromEnv = role === "strong" ? { server: env.STRONG_TEXT_SERVER, model: env.STRONG_LLM_MODEL } : { server: env.FAST_TEXT_SERVER, model: env.FAST_LLM_MODEL };
  const fromConfig = config?.[role] ?? {};
  return {
    server: settings.llmServer ?? fromEnv.server ?? fromConfig.server,
    model: settings.llmModel ?? fromEnv.model ?? fromConfig.model,
  };
}

function endpointOf(role: LlmRole, own: Partial, other: Partial, env: GllamEnv): LlmEndpoint | undefined {
  const borrowed = own.server || own.model ? own : other;
  // A model with no server and an OpenRouter key means OpenRouter (the seed's setup).
  const server = borrowed.server ?? (borrowed.model && env.OPENROUTER_API_KEY ? OPENROUTER_BASE_URL : undefined);
  if (!server) {
    if (borrowed.model) throw new GllamError("E_CONFIG", `${role.toUpperCase()}_LLM_MODEL is set but no server: set ${role.toUpperCase()}_TEXT_SERVER, --llm-server or $OPENROUTER_API_KEY`);
    return undefined;
  }
  if (!URL.canParse(server)) throw new GllamError("E_CONFIG", `LLM server ${JSON.stringify(server)} is not an http(s) URL`);
  if (isOpenRouter(server) && !borrowed.model) throw new GllamError("E_CONFIG", `OpenRouter needs a model name (${role.toUpperCase()}_LLM_MODEL or --llm-model)`);
  return { role, server, chatUrl: chatUrlOf(server), model: borrowed.model ?? "default", headers: headersFor(server, env) };
}

/** Both roles' endpoints (either may be undefined: no LLM configured for it nor for the other role). */
export function resolveLlmEndpoints(settings: LlmSettings, env: GllamEnv, config?: LlmConfig): Record<LlmRole, LlmEndpoint | undefined> {
  const strong = roleSetting("strong", settings, env, config);
  const fast = roleSetting("fast", settings, env, config);
  return { strong: endpointOf("strong", strong, fast, env), fast: endpointOf("fast", fast, strong, env) };
}
