/**
 * The MCP face: every operation as a tool, a node's facts and the store's figures as resources.
 * One session serves every call, so memory opens once (reopened only to go from reading to
 * writing) and the embedding model loads once. Calls run one at a time: the facade is synchronous
 * SQLite underneath, and one at a time no call can close the memory another is using.
 * The SDK's low-level `Server` is used because the tools' schemas are JSON Schema generated from
 * valibot (its `McpServer` wants zod schemas).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { openModeOf, parseOperationInput, type Operation } from "../../gllam/operation.ts";
import { OPERATIONS } from "../../gllam/operations.ts";
import { stderrNotices, type Notices } from "../../gllam/open.ts";
import type { Gllam } from "../../gllam/gllam.ts";
import type { GllamSession } from "../../gllam/session.ts";
import { describeError, GllamError } from "../../gllam/types.ts";
import { listResources, readResource, RESOURCE_TEMPLATES } from "./resources.ts";
import { toolOf, withDefaultScope, type OperationTool } from "./tools.ts";

export type McpServerOptions = {
  session: GllamSession;
  /** The scope of calls that name none. */
  scope: string;
  /** The server's version as MCP clients see it. */
  version: string;
  /** Background workers giving remembered episodes their model vectors once memory is open to write (0: none). */
  workers?: number;
};

/** What the server says while it works, on stderr: warnings, and slow steps such as the model's one load. */
export const mcpNotices: Notices = {
  warn: stderrNotices.warn,
  step: (label, work) => {
    process.stderr.write(`gllam mcp: ${label}\n`);
    return work();
  },
};

/** What a tool error says: GLLAM's own message and code (it names the bad field), or that it was unexpected. */
function toolError(error: unknown): CallToolResult {
  if (error instanceof GllamError) return { isError: true, content: [{ type: "text", text: `${error.message} [${error.code}]` }] };
  // A bug: its stack goes to stderr (stdout carries the protocol), the client gets one line.
  stderrNotices.warn(`gllam mcp: unexpected error: ${error instanceof Error && error.stack ? error.stack : describeError(error)}`);
  return { isError: true, content: [{ type: "text", text: `unexpected error: ${describeError(error)} [E_INTERNAL]` }] };
}

/** The MCP specification's code for a resource that does not exist (the SDK names none). */
const RESOURCE_NOT_FOUND = -32002;

const resourceErrorCode = (error: GllamError): number =>
  error.code === "E_NOT_FOUND" ? RESOURCE_NOT_FOUND : error.code === "E_BAD_INPUT" ? ErrorCode.InvalidParams : ErrorCode.InternalError;

/** The facade's result as plain JSON (structured content is a JSON object). */
const toStructured = (result: unknown): Record<string, unknown> | undefined => {
  const json: unknown = JSON.parse(JSON.stringify(result ?? null));
  return typeof json === "object" && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
};

/** The server, and a promise of the moment no call is running or waiting (to close without cutting one off). */
export type McpFace = { server: Server; idle: () => Promise<void> };

export function createMcpServer(options: McpServerOptions): McpFace {
  const { session, scope } = options;
  const tools = new Map<string, OperationTool>(OPERATIONS.map((operation) => [operation.name, toolOf(operation, scope)]));
  let queue: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };

  // The memory open to write gets what a long-running writer needs: a pool filling model vectors
  // (the model tier of what `remember` stored), and WAL checkpoints so the file's WAL stays small.
  let writer: Gllam | undefined;
  const openFor = async (operation: Operation): Promise<Gllam> => {
    const mode = openModeOf(operation);
    const gllam = await session.open(mode);
    if (!("readOnly" in mode) && gllam !== writer) {
      writer = gllam;
      if ((options.workers ?? 0) > 0) gllam.startEmbeddingWorkerPool(options.workers);
      gllam.startWALCheckpointManager(1000);
    }
    return gllam;
  };

  const server = new Server(
    { name: "gllam", title: "GLLAM local agentic memory", version: options.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        `Local long-term memory in ${session.path} (scope "${scope}" unless a call names another). ` +
        "Before answering, `recall` what memory holds about the question; `remember` the conversation's turns worth keeping; " +
        "`add_fact` records SUBJECT -[relationship]-> OBJECT with its source, `facts` and `fact_history` read them back, `forget` removes.",
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools.values()].map((entry) => entry.tool) }));

  server.setRequestHandler(CallToolRequestSchema, ({ params }) => {
    const entry = tools.get(params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown tool "${params.name}" (tools: ${[...tools.keys()].join(", ")})`);
    return oneAtATime(async (): Promise<CallToolResult> => {
      try {
        const input = parseOperationInput(entry.operation, withDefaultScope(entry, params.arguments ?? {}, scope));
        const { operation } = entry;
        const result = operation.withoutMemory ? await operation.withoutMemory(input) : await operation.run(await openFor(operation), input);
        return { content: [{ type: "text", text: operation.toText(result) }], structuredContent: toStructured(result) };
      } catch (error) {
        return toolError(error);
      }
    });
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => oneAtATime(async () => ({ resources: await listResources(session, scope) })));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, ({ params }) =>
    oneAtATime(async () => {
      try {
        return await readResource(params.uri, session, scope);
      } catch (error) {
        if (error instanceof GllamError) throw new McpError(resourceErrorCode(error), `${error.message} [${error.code}]`);
        throw error;
      }
    }),
  );
  return { server, idle: async () => void (await queue) };
}

/**
 * Serves MCP on stdin/stdout until the client closes stdin (or a signal), then closes memory.
 * Nothing but protocol may reach stdout: whatever a library prints goes to stderr.
 */
export async function serveMcpStdio(options: McpServerOptions): Promise<void> {
  const toStderr = (...parts: unknown[]) => process.stderr.write(`${parts.map((part) => (typeof part === "string" ? part : Bun.inspect(part))).join(" ")}\n`);
  console.log = console.info = console.debug = console.warn = toStderr;
  const { server, idle } = createMcpServer(options);
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  server.onclose = () => resolve();
  const stop = () => void server.close();
  // A client that writes its requests and closes stdin (a shell pipe) still gets every answer:
  // the last lines read are dispatched first, then the calls queued finish and their answers are sent.
  const later = () => new Promise((resolve) => setTimeout(resolve));
  process.stdin.once("end", () => void later().then(idle).then(later).then(stop));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await server.connect(new StdioServerTransport());
  await closed;
  options.session.close();
}
