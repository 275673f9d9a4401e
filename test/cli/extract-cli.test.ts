import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";
import { answerFor, locomoFileOf, placeFact, readDevConversation, type DevConversation, locomoTestFile } from "../extraction/locomo-script.ts";
import { startStubServer, type StubServer } from "../llm/stub-server.ts";
import { Pty } from "../pty.ts";

const locomo = locomoTestFile();
const CLI = join(REPO_ROOT, "src/cli/main.ts");
/** No LLM or embeddings settings leak in from the machine running the tests. */
const ENV = { STRONG_TEXT_SERVER: "", STRONG_LLM_MODEL: "", FAST_TEXT_SERVER: "", FAST_LLM_MODEL: "", OPENROUTER_API_KEY: "", LLM_API_KEY: "", GLLAM_EMBEDDER: "static" };

/** The CLI in a subprocess, without blocking this process (the stub answers from it). */
function spawnGllam(args: string[], env: Record<string, string> = {}) {
  return Bun.spawn(["bun", CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, ...ENV, ...env }, stdout: "pipe", stderr: "pipe" });
}
async function runGllam(args: string[], env: Record<string, string> = {}) {
  const proc = spawnGllam(args, env);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const count = (db: string, sql: string) => {
  const handle = new Database(db, { readonly: true });
  try {
    return handle.query<{ n: number }, []>(sql).get()!.n;
  } finally {
    handle.close();
  }
};

describe("gllam extract on the command line", () => {
  let stub: StubServer;
  let conversation: DevConversation;
  const dir = makeTempDir();
  let file: string;

  beforeAll(async () => {
    stub = await startStubServer();
    conversation = readDevConversation(locomo, 6, 4);
    file = join(dir, "conversation.json");
    await Bun.write(file, locomoFileOf(conversation));
  });
  afterAll(() => stub.stop());

  /** One place per session, so each session's output is countable. */
  const script = (delayMs = 0) => ({ delayMs, rules: conversation.sessions.map((s, i) => answerFor(s, [placeFact(s, conversation.speakers[i % 2]!, `Place ${i + 1}`)])) });

  async function freshDb(name: string): Promise<string> {
    const db = join(dir, `${name}.db`);
    const ingest = await runGllam(["ingest", file, "--db", db]);
    expect(ingest.code).toBe(0);
    return db;
  }

  test("server failures are one line each, exit 1, nothing written", async () => {
    const db = await freshDb("failures");
    stub.setScript({ models: ["served"], apiKey: "k", rules: [{ reply: { json: { facts: [] } } }] });
    const cases = [
      [["--llm-server", "http://127.0.0.1:9"], {}, /^gllam: cannot reach LLM server http:\/\/127\.0\.0\.1:9: .*\[E_LLM_UNREACHABLE\]$/],
      [["--llm-server", stub.url, "--llm-model", "nope"], { LLM_API_KEY: "k" }, /^gllam: model "nope" is not served by .*\[E_LLM_MODEL\]$/],
      [["--llm-server", stub.url, "--llm-model", "served"], { LLM_API_KEY: "bad" }, /^gllam: LLM server refused the credentials .*\[E_LLM_AUTH\]$/],
      [[], {}, /^gllam: extraction needs an LLM: .*\[E_CONFIG\]$/],
    ] as const;
    for (const [flags, env, line] of cases) {
      const run = await runGllam(["extract", "--db", db, ...flags], env);
      expect(run.code).toBe(1);
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr.trim()).toMatch(line);
    }
    expect(count(db, "SELECT count(*) AS n FROM semantic_links")).toBe(0);
    expect(count(db, "SELECT count(*) AS n FROM extracted_sessions")).toBe(0);
  });

  test("killed with SIGKILL mid-run and rerun, every session is extracted exactly once", async () => {
    const db = await freshDb("kill");
    const total = conversation.sessions.length;
    stub.setScript(script(150));
    const run = spawnGllam(["extract", "--db", db, "--llm-server", stub.url, "--concurrency", "2"]);
    while (stub.stats().answered < 3 && run.exitCode === null) await Bun.sleep(10);
    run.kill("SIGKILL");
    await run.exited;
    // A request the killed run had in flight still ends at the stub: let it end before the counts reset.
    while (stub.stats().inFlight > 0) await Bun.sleep(10);
    const done = count(db, "SELECT count(*) AS n FROM extracted_sessions");
    expect(done).toBeLessThan(total);
    // Whatever the kill interrupted left no trace: every link belongs to a marked session.
    expect(count(db, "SELECT count(*) AS n FROM semantic_links WHERE relationship = 'located_in'")).toBe(done);

    stub.setScript(script());
    const rerun = await runGllam(["extract", "--db", db, "--llm-server", stub.url, "--concurrency", "2"]);
    expect(rerun.code).toBe(0);
    expect(stub.stats().answered).toBe(total - done);
    expect(rerun.stdout).toContain(`extracted ${total - done} of ${total} sessions (${done} already extracted)`);
    expect(count(db, "SELECT count(*) AS n FROM extracted_sessions")).toBe(total);
    expect(count(db, "SELECT count(*) AS n FROM semantic_links WHERE relationship = 'located_in'")).toBe(total);
    expect(count(db, "SELECT count(DISTINCT json_extract(metadata, '$.extraction.session')) AS n FROM semantic_links WHERE relationship = 'located_in'")).toBe(total);
    expect(count(db, "SELECT count(*) AS n FROM semantic_nodes WHERE name LIKE 'Place %'")).toBe(total);
  });

  test("on a terminal a progress bar counts sessions, facts, tokens and errors, then the summary line", async () => {
    const db = await freshDb("tty");
    stub.setScript(script(40));
    const pty = Pty.start(["bun", CLI, "extract", "--db", db, "--llm-server", stub.url], { cwd: dir, env: ENV });
    try {
      await pty.waitFor(/\d+\/6 sessions, \d+ facts, \d+ tokens, 0 errors/);
      expect(await pty.waitForExit(60_000)).toBe(0);
      expect(pty.screen()).toContain("extracted 6 of 6 sessions: 6 facts");
    } finally {
      pty.close();
    }
  });

  test("--json reports usage; --resume and --clean exclude each other", async () => {
    const db = await freshDb("json");
    stub.setScript(script());
    const run = await runGllam(["extract", "--db", db, "--llm-server", stub.url, "--json", "--prefix", `${conversation.sampleId}/session_1`]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { extracted: number; usage: { promptTokens: number; completionTokens: number } };
    expect(report.extracted).toBe(1);
    expect(report.usage.promptTokens).toBe(stub.stats().promptTokens);
    const both = await runGllam(["extract", "--db", db, "--resume", "--clean"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("exclude each other");
  });
});

test("gllam fact import: JSONL straight to addEdge, all or none, errors name the line", async () => {
  const dir = makeTempDir();
  const db = join(dir, "facts.db");
  const lines = [
    { subject: "Caddy", relationship: "depends_on", object: "Go", source: { handle: "alice", doc_type: "jira_resolved" } },
    { subject: "Caddy", relationship: "version_is", object: "2.7", valid_from: "2024-01-01" },
    {},
  ];
  await Bun.write(join(dir, "good.jsonl"), lines.slice(0, 2).map((l) => JSON.stringify(l)).join("\n") + "\n\n");
  await Bun.write(join(dir, "bad.jsonl"), [...lines.slice(0, 1), { subject: "X", relationship: "is", object: "X" }, lines[2]].map((l) => JSON.stringify(l)).join("\n"));
  const bad = await runGllam(["fact", "import", join(dir, "bad.jsonl"), "--db", db]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/bad\.jsonl:3: .*subject/);
  const good = await runGllam(["fact", "import", join(dir, "good.jsonl"), "--db", db]);
  expect(good.stderr).toBe("");
  expect(good.stdout.trim()).toBe("imported 2 facts: 3 new nodes, 0 already known, 0 contradictions opened");
  expect(count(db, "SELECT count(*) AS n FROM semantic_links WHERE origin_source_id IS NOT NULL")).toBe(1);
});
