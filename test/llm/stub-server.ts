/**
 * The one OpenAI-compatible stub LLM server of the tests (Bun.serve on 127.0.0.1, a free port).
 * It answers /v1/chat/completions from a script of canned replies keyed by request content, and
 * misbehaves on demand: 429 with Retry-After, 500, slow answers, bodies cut mid-way, truncated
 * JSON, fenced JSON, <think> blocks, wrong schema, unknown model (404), bad key (401), refused
 * response_format (400). It counts requests and tokens (about 4 characters a token) like `usage`.
 *
 * In-process: `const stub = await startStubServer({ rules: [...] })`, then `stub.url`.
 * As a subprocess (CLI and shell tests): `bun test/llm/stub-server.ts --script file.json [--port N]`
 * prints its base URL on the first line of stdout and serves until killed; GET /stub/stats gives the
 * counts, POST /stub/script replaces the script.
 */
import * as v from "valibot";

const ReplySchema = v.object({
  /** The assistant message; `json` is sent as JSON text. */
  content: v.optional(v.string()),
  json: v.optional(v.unknown()),
  /** An HTTP error instead of an answer (with `error` as its message). */
  status: v.optional(v.number()),
  error: v.optional(v.string()),
  retryAfter: v.optional(v.union([v.number(), v.string()])),
  /** Wait this long before answering. */
  delayMs: v.optional(v.number()),
  /** Cut the content in half (finish_reason "length"), as a model that ran out of tokens. */
  truncate: v.optional(v.boolean()),
  /** Wrap the content in a ```json fence. */
  fence: v.optional(v.boolean()),
  /** Put a <think> block before the content. */
  think: v.optional(v.string()),
  /** Send only half of the body (a connection cut mid-answer). */
  reset: v.optional(v.boolean()),
  /**
   * Build the answer from the request instead: "extraction" gives one entity per speaker and per
   * topic and one fact per numbered turn ([n] Speaker: text) of the last user message (the bench's
   * zero-latency model).
   */
  generate: v.optional(v.picklist(["extraction"])),
});
export type StubReply = v.InferOutput<typeof ReplySchema>;

const RuleSchema = v.object({
  /** Substring of the last user message (none: any request). */
  match: v.optional(v.string()),
  /** Substring of any message, system prompt included. */
  matchAny: v.optional(v.string()),
  /** Only requests for this model. */
  model: v.optional(v.string()),
  /** How many requests this rule answers before it is skipped (none: every matching one). */
  times: v.optional(v.number()),
  /** One reply, or replies given in turn to successive matching requests (the last repeats). */
  reply: v.union([v.array(ReplySchema), ReplySchema]),
});
export type StubRule = v.InferInput<typeof RuleSchema>;

export const StubScriptSchema = v.object({
  rules: v.optional(v.array(RuleSchema), []),
  /** Models served; another model gets a 404 as vLLM and OpenAI answer (none: any model, as llama.cpp). */
  models: v.optional(v.array(v.string())),
  /** Bearer key required (401 without it). */
  apiKey: v.optional(v.string()),
  /** response_format types refused with a 400, as a server without grammar support. */
  refuseFormats: v.optional(v.array(v.string()), []),
  /** Delay added to every answer. */
  delayMs: v.optional(v.number(), 0),
});
export type StubScript = v.InferInput<typeof StubScriptSchema>;

export type StubRequest = { model: string; messages: { role: string; content: string }[]; lastUser: string; responseFormat?: string; headers: Record<string, string> };
export type StubStats = { requests: number; answered: number; promptTokens: number; completionTokens: number; inFlight: number; mostInFlight: number };

export type StubServer = {
  /** Base URL as a user gives it (http://127.0.0.1:PORT). */
  url: string;
  /** Every chat request received, in order. */
  requests: StubRequest[];
  stats(): StubStats;
  setScript(script: StubScript): void;
  stop(): Promise<void>;
};

const tokensOf = (text: string): number => Math.ceil(text.length / 4);

const errorBody = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { message, type: status === 404 ? "NotFoundError" : "error", code: status } }, { status, headers });

/** An extraction answer made from the prompt's numbered turns: each speaker mentions the turn's first long word. */
export function generateExtraction(prompt: string) {
  const turns = [...prompt.matchAll(/^\[(\d+)\] ([^:\n]+): (.*)$/gm)].map((m) => ({ n: Number(m[1]), speaker: m[2]!.trim(), text: m[3]! }));
  const facts = turns.flatMap((turn) => {
    const topic = /\b[A-Za-z]{6,}\b/.exec(turn.text)?.[0];
    return topic ? [{ subject: turn.speaker, relationship: "mentioned", object: topic.toLowerCase(), quote: turn.text.slice(0, 60), turns: [turn.n] }] : [];
  });
  const entities = [
    ...new Set(turns.map((t) => t.speaker)).values().map((name) => ({ name, type: "person" })),
    ...new Set(facts.map((f) => f.object)).values().map((name) => ({ name, type: "topic" })),
  ];
  return { entities, facts };
}

export async function startStubServer(script: StubScript = {}, port = 0): Promise<StubServer> {
  let parsed = v.parse(StubScriptSchema, script);
  let used = new Map<number, number>();
  const requests: StubRequest[] = [];
  const stats: StubStats = { requests: 0, answered: 0, promptTokens: 0, completionTokens: 0, inFlight: 0, mostInFlight: 0 };

  const pick = (request: StubRequest): StubReply | undefined => {
    for (const [index, rule] of parsed.rules.entries()) {
      const count = used.get(index) ?? 0;
      if (rule.times !== undefined && count >= rule.times) continue;
      if (rule.model !== undefined && rule.model !== request.model) continue;
      if (rule.match !== undefined && !request.lastUser.includes(rule.match)) continue;
      if (rule.matchAny !== undefined && !request.messages.some((m) => m.content.includes(rule.matchAny!))) continue;
      used.set(index, count + 1);
      const replies = Array.isArray(rule.reply) ? rule.reply : [rule.reply];
      return replies[Math.min(count, replies.length - 1)];
    }
    return undefined;
  };

  const answer = async (request: StubRequest): Promise<Response> => {
    if (parsed.apiKey !== undefined && request.headers.authorization !== `Bearer ${parsed.apiKey}`) return errorBody(401, "Incorrect API key provided");
    if (parsed.models && !parsed.models.includes(request.model)) return errorBody(404, `The model \`${request.model}\` does not exist.`);
    if (request.responseFormat && parsed.refuseFormats.includes(request.responseFormat)) return errorBody(400, `response_format type ${request.responseFormat} is not supported`);
    const reply = pick(request);
    if (!reply) return errorBody(400, `stub: no canned reply for ${JSON.stringify(request.lastUser.slice(0, 80))}`);
    const delay = parsed.delayMs + (reply.delayMs ?? 0);
    if (delay > 0) await Bun.sleep(delay);
    if (reply.status !== undefined) {
      const headers: Record<string, string> = reply.retryAfter !== undefined ? { "retry-after": String(reply.retryAfter) } : {};
      return errorBody(reply.status, reply.error ?? `stub error ${reply.status}`, headers);
    }
    let content = reply.generate ? JSON.stringify(generateExtraction(request.lastUser)) : reply.json !== undefined ? JSON.stringify(reply.json) : (reply.content ?? "");
    if (reply.truncate) content = content.slice(0, Math.floor(content.length / 2));
    if (reply.fence) content = "Here it is:\n```json\n" + content + "\n```";
    if (reply.think !== undefined) content = `<think>${reply.think}</think>\n${content}`;
    const promptTokens = request.messages.reduce((sum, m) => sum + 4 + tokensOf(m.content), 0);
    const completionTokens = tokensOf(content);
    stats.answered++;
    stats.promptTokens += promptTokens;
    stats.completionTokens += completionTokens;
    const body = JSON.stringify({
      id: `stub-${stats.requests}`,
      object: "chat.completion",
      model: request.model,
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: reply.truncate ? "length" : "stop" }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
    if (!reply.reset) return new Response(body, { headers: { "content-type": "application/json" } });
    const half = new TextEncoder().encode(body.slice(0, body.length / 2));
    // Fewer bytes than Content-Length promises, then the end: the client sees the connection close mid-body.
    const stream = new ReadableStream({ start: (controller) => (controller.enqueue(half), controller.close()) });
    return new Response(stream, { headers: { "content-type": "application/json", "content-length": String(body.length) } });
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port,
    idleTimeout: 0,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/stub/stats") return Response.json(stats);
      if (path === "/stub/script" && req.method === "POST") {
        stub.setScript((await req.json()) as StubScript);
        return Response.json({ ok: true });
      }
      if (path.endsWith("/models")) return Response.json({ object: "list", data: (parsed.models ?? ["stub"]).map((id) => ({ id, object: "model" })) });
      if (!path.endsWith("/chat/completions") || req.method !== "POST") return errorBody(404, `stub: no route ${req.method} ${path}`);
      stats.requests++;
      const body = (await req.json()) as { model?: string; messages?: { role: string; content: string }[]; response_format?: { type?: string } };
      const messages = body.messages ?? [];
      const request: StubRequest = {
        model: body.model ?? "",
        messages,
        lastUser: messages.findLast((m) => m.role === "user")?.content ?? "",
        responseFormat: body.response_format?.type,
        headers: Object.fromEntries(req.headers),
      };
      requests.push(request);
      stats.mostInFlight = Math.max(stats.mostInFlight, ++stats.inFlight);
      try {
        return await answer(request);
      } finally {
        stats.inFlight--;
      }
    },
  });
  const stub: StubServer = {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    stats: () => ({ ...stats }),
    setScript(next) {
      parsed = v.parse(StubScriptSchema, next);
      used = new Map();
      requests.length = 0;
      Object.assign(stats, { requests: 0, answered: 0, promptTokens: 0, completionTokens: 0, inFlight: 0, mostInFlight: 0 });
    },
    stop: () => server.stop(true),
  };
  return stub;
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const flag = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const scriptPath = flag("--script");
  const script = scriptPath ? ((await Bun.file(scriptPath).json()) as StubScript) : {};
  const stub = await startStubServer(script, Number(flag("--port") ?? 0));
  process.stdout.write(`${stub.url}\n`);
  const stop = () => void stub.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
