/**
 * `gllam mcp` as an agent runtime drives it: the official SDK's Client over stdio, spawning the
 * compiled binary in an empty folder with a fresh HOME, calling every tool; beside it, CLI
 * processes of the same binary read and write the same file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { compiledGllam } from "../../binary-build.ts";
import { makeTempDir } from "../../helpers.ts";
import { installCompiled } from "../../scripts/compiled.ts";

const DOMAIN = `(define (domain lamp)
  (:requirements :strips)
  (:predicates (off) (on))
  (:action switch-on :parameters () :precondition (off) :effect (and (on) (not (off)))))`;
const PROBLEM = `(define (problem light) (:domain lamp) (:init (off)) (:goal (on)))`;

type Installed = ReturnType<typeof installCompiled> & { binary: string; env: Record<string, string> };

/** An MCP client connected to `gllam mcp ARGS` run from the installed binary; stderr is kept for failure messages. */
async function connect(installed: Installed, args: string[]) {
  const transport = new StdioClientTransport({ command: installed.binary, args: ["mcp", ...args], cwd: installed.runDir, env: installed.env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "gllam-test", version: "0" });
  // Anything on stdout that is not protocol breaks the transport: collect what it reports.
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return { client, protocolErrors, stderr: () => stderr };
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

/** The CLI of the same binary, as a separate process (async: it runs while the server answers). */
async function cli(installed: Installed, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([installed.binary, ...args], { cwd: installed.runDir, env: installed.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const work = makeTempDir("gllam-mcp-");
let installed: Installed;
let session: Awaited<ReturnType<typeof connect>>;
const call = (name: string, args: Record<string, unknown> = {}) => session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

beforeAll(async () => {
  const setup = installCompiled(await compiledGllam(), work);
  installed = { ...setup, binary: join(setup.runDir, "gllam"), env: { PATH: "/usr/bin:/bin", HOME: setup.home } };
  session = await connect(installed, []);
}, 600_000);

afterAll(async () => {
  await session?.client.close();
});

describe("gllam mcp (compiled, SDK client over stdio)", () => {
  test("lists a tool per operation, each with its summary and an object input schema", async () => {
    const { tools } = await session.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["remember", "recall", "add_fact", "facts", "fact_history", "forget", "plan", "stats", "backup", "doctor"]));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.description?.length).toBeGreaterThan(20);
    }
    const recall = tools.find((tool) => tool.name === "recall")!;
    expect(recall.inputSchema.required).toEqual(["query"]);
    expect(recall.annotations?.readOnlyHint).toBe(true);
    // forget's "exactly one of" union is one object schema offering each target.
    expect(Object.keys(tools.find((tool) => tool.name === "forget")!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["node", "link", "source", "episode", "session", "scope"]));
  });

  test("plan needs no memory: it solves PDDL given as text before any file exists", async () => {
    const planned = await call("plan", { domain: DOMAIN, problem: PROBLEM });
    expect(textOf(planned).trimEnd()).toBe("(switch-on)\n; cost = 1");
    expect(planned.structuredContent).toMatchObject({ status: "solved", cost: 1 });
    const broken = await call("plan", { domain: "(define (domain lamp)", problem: PROBLEM });
    expect(textOf(broken)).toBe("domain.pddl:1:1: unclosed '(' (missing ')' before the end of the file) [E_BAD_INPUT]");
    expect(existsSync(join(installed.runDir, "gllam.db"))).toBe(false);
  });

  test("a read before anything is stored is a tool error and creates no file", async () => {
    const result = await call("recall", { query: "ferry" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("[E_NOT_FOUND]");
    expect((await session.client.listResources()).resources.map((resource) => resource.uri)).toEqual(["gllam://stats"]);
    expect(existsSync(join(installed.runDir, "gllam.db"))).toBe(false);
  });

  test("remember stores turns; recall finds them, as Markdown and as structured content", async () => {
    const stored = await call("remember", {
      turns: [
        { session_id: "trip", speaker: "Ann", content: "The ferry to the island leaves at noon.", timestamp: "2026-05-01T09:00:00Z" },
        { session_id: "trip", speaker: "Bob", content: "I will bring the bikes." },
      ],
    });
    expect(stored.isError).toBeFalsy();
    expect(stored.structuredContent).toMatchObject({ inserted: 2, duplicates: 0 });
    const recalled = await call("recall", { query: "when does the ferry leave", episodes: 3 });
    expect(textOf(recalled)).toContain("**Ann:** The ferry to the island leaves at noon.");
    const episodes = (recalled.structuredContent as { episodes: { content: string }[] }).episodes;
    expect(episodes[0]!.content).toBe("The ferry to the island leaves at noon.");
  });

  test("add_fact records a fact; facts and fact_history read it back; forget removes it", async () => {
    const added = await call("add_fact", { subject: "Caddy", relationship: "runs_on", object: "homelab", caveats: "behind the VPN" });
    expect(added.isError).toBeFalsy();
    const linkId = (added.structuredContent as { linkId: number }).linkId;
    expect(textOf(added)).toContain(`link ${linkId} (runs_on`);

    const facts = await call("facts", { node: "caddy" });
    expect(textOf(facts)).toContain("Caddy (entity)");
    expect(textOf(facts)).toContain("homelab");
    expect(textOf(facts)).toContain("behind the VPN");

    const history = await call("fact_history", { subject: "Caddy", relationship: "runs_on" });
    expect(textOf(history)).toContain(`[link ${linkId}]`);

    const node = await session.client.readResource({ uri: "gllam://node/Caddy" });
    expect((node.contents[0] as { text: string }).text).toContain("homelab");

    const forgotten = await call("forget", { link: linkId });
    expect(textOf(forgotten)).toContain("removed 0 nodes, 1 links");
    expect(textOf(await call("facts", { node: "Caddy" }))).toContain("(no facts)");
  });

  test("stats, backup and doctor report on the file", async () => {
    const stats = await call("stats");
    expect(stats.structuredContent).toMatchObject({ tables: { episodes: 2, sessions: 1 } });
    expect(textOf(stats)).toContain("database   ");

    const backedUp = await call("backup", { out: "copy.db" });
    expect(textOf(backedUp)).toContain("backed up to");
    expect(existsSync(join(installed.runDir, "copy.db"))).toBe(true);
    expect(textOf(await call("doctor"))).toContain("integrity");
  });

  test("bad arguments are tool errors naming the field; the server answers afterwards", async () => {
    const badK = await call("recall", { query: "ferry", k: "many" });
    expect(badK.isError).toBe(true);
    expect(textOf(badK)).toBe("invalid recall input: k: must be an integer in 1..100 [E_BAD_INPUT]");
    const badTurn = await call("remember", { turns: [{ session_id: "trip" }] });
    expect(textOf(badTurn)).toMatch(/turns\.0\.content: .*\[E_BAD_INPUT\]/);
    const unknownNode = await call("facts", { node: "nobody-by-that-name" });
    expect(unknownNode.isError).toBe(true);
    await expect(session.client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/unknown tool "no_such_tool"/);
    expect((await call("stats")).isError).toBeFalsy();
    expect(session.protocolErrors).toEqual([]);
  });

  test("CLI processes write and read the same file while the server holds it open", async () => {
    writeFileSync(join(installed.runDir, "notes.jsonl"), '{"session_id": "cli", "speaker": "Cy", "content": "The lighthouse key hangs in the shed."}\n');
    // A CLI ingest and server writes at the same time: both land (WAL, busy waits), none is lost.
    const [ingested, ...remembered] = await Promise.all([
      cli(installed, "ingest", "notes.jsonl"),
      ...["red", "green", "blue"].map((colour) => call("remember", { turns: [{ session_id: "paint", content: `The shed door is painted ${colour}.` }] })),
    ]);
    expect(ingested).toMatchObject({ code: 0, stderr: "" });
    expect(remembered.map((result) => result.isError ?? false)).toEqual([false, false, false]);

    expect(textOf(await call("recall", { query: "lighthouse key" }))).toContain("**Cy:** The lighthouse key hangs in the shed.");
    const cliRecall = await cli(installed, "recall", "shed door painted", "--episodes", "5");
    expect(cliRecall.code).toBe(0);
    for (const colour of ["red", "green", "blue"]) expect(cliRecall.stdout).toContain(`The shed door is painted ${colour}.`);
    expect((await call("stats")).structuredContent).toMatchObject({ tables: { episodes: 6 } });
    expect(session.stderr()).not.toContain("unexpected error");
  });

  test("a background worker gives remembered episodes their model vectors; stdout stays protocol", async () => {
    type Tables = { episodes: number; episode_vectors: number; episode_vector_queue: number };
    const tables = async () => ((await call("stats")).structuredContent as { tables: Tables }).tables;
    // The worker embeds while calls go on; wait for it by asking (its speed is not what is tested).
    for (let asked = 0; asked < 600 && (await tables()).episode_vector_queue > 0; asked++) await Bun.sleep(200);
    const filled = await tables();
    expect(filled.episode_vector_queue).toBe(0);
    expect(filled.episode_vectors).toBe(filled.episodes);
    expect(session.protocolErrors).toEqual([]);
  });

  test("the embedding model loads once, at the first search that needs it", async () => {
    // `gllam seed` (another process) stores nodes with model vectors: recall now embeds the query with the model.
    expect(await cli(installed, "seed")).toMatchObject({ code: 0, stderr: "" });
    for (const query of ["web server", "reverse proxy", "where does caddy run"]) {
      expect(textOf(await call("recall", { query, entities: ["caddy"] }))).toContain("## Caddy (service)");
    }
    expect(session.stderr().match(/loading the embedding model/g)).toHaveLength(1);
  });

  test("resources: the scope's nodes (the seeded sample's among them) and the store's figures", async () => {
    const { resources } = await session.client.listResources();
    expect(resources[0]).toMatchObject({ uri: "gllam://stats", mimeType: "text/markdown" });
    expect(resources).toContainEqual(expect.objectContaining({ uri: "gllam://node/caddy", title: "Caddy (service)" }));
    expect(resources.length).toBeGreaterThan(10);
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["gllam://node/{id}"]);
    const stats = await session.client.readResource({ uri: "gllam://stats" });
    expect((stats.contents[0] as { text: string }).text).toContain("semantic_nodes");
    await expect(session.client.readResource({ uri: "gllam://elsewhere" })).rejects.toMatchObject({ code: -32002, message: expect.stringContaining("no resource gllam://elsewhere") });
  });

  test("a shell pipe gets every answer before the server leaves at the end of its input", async () => {
    const lines = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "sh", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "facts", arguments: { node: "caddy" } } },
    ];
    const proc = Bun.spawn([installed.binary, "mcp"], { cwd: installed.runDir, env: installed.env, stdin: Buffer.from(lines.map((line) => JSON.stringify(line)).join("\n") + "\n"), stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    const answers = stdout.trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[1].result.content[0].text).toContain("Caddy (service)");
  });

  test("--scope is the scope of calls that name none", async () => {
    const scoped = await connect(installed, ["--scope", "work"]);
    try {
      // The memory is first opened to read, then reopened to write: the calls go on as before.
      expect(textOf(await scoped.client.callTool({ name: "recall", arguments: { query: "release train" } }))).not.toContain("Thursday");
      await scoped.client.callTool({ name: "remember", arguments: { turns: [{ session_id: "standup", content: "The release train leaves on Thursday." }] } });
      expect(textOf(await scoped.client.callTool({ name: "recall", arguments: { query: "release train" } }))).toContain("The release train leaves on Thursday.");
      // The default scope does not see it, through this server or the CLI.
      expect(textOf(await call("recall", { query: "release train" }))).not.toContain("Thursday");
      expect((await cli(installed, "recall", "release train", "--scope", "work")).stdout).toContain("The release train leaves on Thursday.");
    } finally {
      await scoped.client.close();
    }
    const badScope = installed.run("mcp", "--scope", "a/b");
    expect(badScope.code).toBe(1);
    expect(badScope.stderr).toContain('invalid --scope "a/b": must not contain "/"');
  });
});
