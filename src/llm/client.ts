/**
 * The OpenAI-compatible chat client (ofetch): one per role, sharing per-server concurrency limits,
 * the response_format each server was found to take, and one usage account per run. Structured
 * output: the valibot schema goes out as JSON Schema (json_schema where the server takes it, else
 * json_object, else only in the prompt), the answer is cleaned and validated, one repair round
 * quotes the validation error, then E_LLM_BAD_OUTPUT names what was being processed.
 */
import * as v from "valibot";
import { readEnv, type GllamEnv } from "../config/env.ts";
import { LlmConfigSchema, type LlmConfig } from "../config/prompts.ts";
import { GllamError } from "../engine/errors.ts";
import { LLM_ROLES, resolveLlmEndpoints, type LlmEndpoint, type LlmRole, type LlmSettings } from "./endpoints.ts";
import { Limiter } from "./limit.ts";
import { checkOutput, jsonSchemaOf } from "./output.ts";
import { httpFailureError, postChat, refusesResponseFormat, type RequestPolicy } from "./request.ts";

export type ChatMessage = { role: "system" | "user" | "assistant"; content: string };
export type ResponseFormatMode = "json_schema" | "json_object" | "none";
const FORMAT_STEPS: ResponseFormatMode[] = ["json_schema", "json_object", "none"];

/**
 * Tokens and requests of a run (prompt/completion from each answer's `usage`; cost when the server
 * reports it), and the wall-clock milliseconds with at least one request in flight (what GLLAM's
 * own overhead excludes: parallel requests count once).
 */
export type LlmUsage = { requests: number; retries: number; repairs: number; promptTokens: number; completionTokens: number; cost: number; waitMs: number };
export const emptyUsage = (): LlmUsage => ({ requests: 0, retries: 0, repairs: 0, promptTokens: 0, completionTokens: 0, cost: 0, waitMs: 0 });

const UsageSchema = v.object({
  prompt_tokens: v.optional(v.number(), 0),
  completion_tokens: v.optional(v.number(), 0),
  cost: v.optional(v.number(), 0),
});
const ChatResponseSchema = v.object({
  choices: v.pipe(
    v.array(v.object({ message: v.object({ content: v.nullish(v.string(), "") }), finish_reason: v.nullish(v.string()) })),
    v.minLength(1, "has no choices"),
  ),
  usage: v.nullish(UsageSchema),
});

export type ChatAnswer = { content: string; finishReason?: string | null };

/** What every client of one layer shares. */
type Shared = {
  config: LlmConfig;
  policy: RequestPolicy;
  limiters: Map<string, Limiter>;
  formats: Map<string, ResponseFormatMode>;
  usage: Record<LlmRole, LlmUsage>;
  /** Requests in flight and since when, per role and for both ("total"), for the wait clocks. */
  busy: Record<LlmRole | "total", { inFlight: number; since: number; ms: number }>;
};

/** Runs a request under the role's and the layer's wait clocks (time with anything in flight). */
async function timed<T>(clocks: Shared["busy"][LlmRole][], work: () => Promise<T>): Promise<T> {
  const now = performance.now();
  for (const clock of clocks) if (clock.inFlight++ === 0) clock.since = now;
  try {
    return await work();
  } finally {
    const end = performance.now();
    for (const clock of clocks) if (--clock.inFlight === 0) clock.ms += end - clock.since;
  }
}

export class LlmClient {
  constructor(
    readonly endpoint: LlmEndpoint,
    private readonly shared: Shared,
  ) {}

  /** The layer's settings (the config's `llm` entry): context size, formats, retries. */
  get config(): LlmConfig {
    return this.shared.config;
  }

  /** "strong model qwen3 at http://…" for reports and errors. */
  describe(): string {
    return `${this.endpoint.role} model ${this.endpoint.model} at ${this.endpoint.server}`;
  }

  private get limiter(): Limiter {
    let limiter = this.shared.limiters.get(this.endpoint.server);
    if (!limiter) this.shared.limiters.set(this.endpoint.server, (limiter = new Limiter(this.shared.config.concurrency_per_server)));
    return limiter;
  }

  /** The response_format this server takes (learnt: a refusal steps down for every later request). */
  get formatMode(): ResponseFormatMode {
    const configured = this.shared.config.response_format;
    return this.shared.formats.get(this.endpoint.server) ?? (configured === "auto" ? "json_schema" : configured);
  }

  /** One chat completion. `format` asks for structured output (stepped down when the server refuses it). */
  async chat(messages: ChatMessage[], format?: { name: string; schema: Record<string, unknown> }, maxTokens?: number): Promise<ChatAnswer> {
    const usage = this.shared.usage[this.endpoint.role];
    for (;;) {
      const mode = format ? this.formatMode : "none";
      const body: Record<string, unknown> = { model: this.endpoint.model, messages, temperature: this.shared.config.temperature, stream: false };
      if (maxTokens) body.max_tokens = maxTokens;
      if (mode === "json_schema") body.response_format = { type: "json_schema", json_schema: { name: format!.name, schema: format!.schema, strict: false } };
      if (mode === "json_object") body.response_format = { type: "json_object" };
      if (this.endpoint.headers["X-Title"]) body.usage = { include: true }; // OpenRouter reports cost only when asked
      const busy = this.shared.busy;
      const result = await this.limiter.run(() => timed([busy[this.endpoint.role], busy.total], () => postChat(this.endpoint, body, this.shared.policy)));
      usage.retries += result.retries;
      if (!result.ok) {
        const auto = this.shared.config.response_format === "auto";
        if (auto && mode !== "none" && refusesResponseFormat(result.failure)) {
          this.shared.formats.set(this.endpoint.server, FORMAT_STEPS[FORMAT_STEPS.indexOf(mode) + 1]!);
          continue;
        }
        throw httpFailureError(this.endpoint, result.failure);
      }
      const parsed = v.safeParse(ChatResponseSchema, result.data);
      if (!parsed.success) throw new GllamError("E_LLM_RESPONSE", `${this.endpoint.server} answered with something that is not a chat completion: ${parsed.issues[0].message}`);
      usage.requests++;
      const counted = parsed.output.usage;
      if (counted) {
        usage.promptTokens += counted.prompt_tokens;
        usage.completionTokens += counted.completion_tokens;
        usage.cost += counted.cost;
      }
      const choice = parsed.output.choices[0]!;
      return { content: choice.message.content ?? "", finishReason: choice.finish_reason };
    }
  }

  /**
   * A value of `schema` from the model. `what` names the thing processed ("session s1 chunk 2/3")
   * in the error when the answer stays unusable after the repair round.
   */
  async structured<S extends v.GenericSchema>(schema: S, messages: ChatMessage[], what: string, name = "answer"): Promise<v.InferOutput<S>> {
    const jsonSchema = jsonSchemaOf(schema);
    const instruction = `Answer with one JSON value only, no prose and no code fence, matching this JSON Schema:\n${JSON.stringify(jsonSchema)}`;
    const asked = withInstruction(messages, instruction);
    const first = await this.chat(asked, { name, schema: jsonSchema });
    const checked = checkOutput(schema, first.content);
    if (checked.ok) return checked.value;
    this.shared.usage[this.endpoint.role].repairs++;
    const repair: ChatMessage[] = [
      ...asked,
      { role: "assistant", content: first.content },
      { role: "user", content: `Your answer could not be used: ${checked.problem}. Reply again with only the corrected JSON matching the schema.` },
    ];
    const second = checkOutput(schema, (await this.chat(repair, { name, schema: jsonSchema })).content);
    if (second.ok) return second.value;
    throw new GllamError("E_LLM_BAD_OUTPUT", `${what}: the ${this.endpoint.role} model's answer did not match the schema after a repair round: ${second.problem}`);
  }
}

/** The messages with the instruction added to the system message (one is created when there is none). */
function withInstruction(messages: ChatMessage[], instruction: string): ChatMessage[] {
  const at = messages.findIndex((m) => m.role === "system");
  if (at < 0) return [{ role: "system", content: instruction }, ...messages];
  return messages.map((m, i) => (i === at ? { ...m, content: `${m.content}\n\n${instruction}` } : m));
}

/** Both roles of one run: their clients (undefined when no LLM is configured) and the run's usage. */
export class LlmLayer {
  readonly strong?: LlmClient;
  readonly fast?: LlmClient;
  private readonly shared: Shared;

  constructor(endpoints: Record<LlmRole, LlmEndpoint | undefined>, config: LlmConfig = v.parse(LlmConfigSchema, {})) {
    this.shared = {
      config,
      policy: { timeoutMs: config.timeout_seconds * 1000, maxRetries: config.max_retries, retryBaseMs: config.retry_base_ms },
      limiters: new Map(),
      formats: new Map(),
      usage: { strong: emptyUsage(), fast: emptyUsage() },
      busy: { strong: { inFlight: 0, since: 0, ms: 0 }, fast: { inFlight: 0, since: 0, ms: 0 }, total: { inFlight: 0, since: 0, ms: 0 } },
    };
    if (endpoints.strong) this.strong = new LlmClient(endpoints.strong, this.shared);
    if (endpoints.fast) this.fast = new LlmClient(endpoints.fast, this.shared);
  }

  /** The layer the flags, environment and config name. */
  static fromSettings(settings: LlmSettings, config?: LlmConfig, env: GllamEnv = readEnv()): LlmLayer {
    return new LlmLayer(resolveLlmEndpoints(settings, env, config), config);
  }

  get config(): LlmConfig {
    return this.shared.config;
  }

  get configured(): boolean {
    return this.strong !== undefined || this.fast !== undefined;
  }

  /** The run's usage, per role and in total. */
  usage(): Record<LlmRole | "total", LlmUsage> {
    const total = emptyUsage();
    for (const role of LLM_ROLES) for (const key of Object.keys(total) as (keyof LlmUsage)[]) total[key] += this.shared.usage[role][key];
    const { busy } = this.shared;
    return { strong: { ...this.shared.usage.strong, waitMs: busy.strong.ms }, fast: { ...this.shared.usage.fast, waitMs: busy.fast.ms }, total: { ...total, waitMs: busy.total.ms } };
  }
}
