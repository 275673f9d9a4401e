import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, runGllam } from "../helpers.ts";

const dir = makeTempDir();
let n = 0;
/** A fresh database, and a gllam that writes it with static vectors only (no model to load). */
function freshDb() {
  const db = join(dir, `bad-${++n}.db`);
  const gllam = (...args: string[]) => runGllam([...args, "--db", db, "--embedder", "static"]);
  const episodes = () => JSON.parse(runGllam(["stats", "--json", "--db", db]).stdout).tables.episodes as number;
  return { db, gllam, episodes };
}
const write = (name: string, content: string | Uint8Array) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const jsonl = (...records: Record<string, unknown>[]) => records.map((r) => JSON.stringify({ session_id: "s", speaker: "Ann", ...r })).join("\n");
/** Deterministic noise, like a random binary file. */
const noise = (bytes: number) => new Uint8Array(bytes).map((_, i) => (Math.imul(i + 1, 2654435761) >>> 13) & 0xff);

describe("gllam ingest: what only the table used to refuse is a bad record before anything is written", () => {
  const late = [
    ["seq at 2^63", { seq: 2 ** 63 }, "seq: must be a whole number below 2\\^53"],
    ["a timestamp past a Date's range", { timestamp: 1e20 }, "unreadable timestamp 100000000000000000000"],
    ["content over 1,000,000 characters", { content: "x".repeat(1_000_001) }, "content: must be at most 1,000,000 characters"],
    ["content of control characters only", { content: "\u0000\u0001" }, "content: must not be empty"],
  ] as const;

  test("a bad value in a later file: no file is written, the bad record is named file:line; --skip-bad lists each and keeps the rest", () => {
    const { gllam, episodes } = freshDb();
    const first = write("first.jsonl", jsonl({ content: "The ferry leaves at noon." }, { content: "Pack the snorkel gear." }));
    const files = late.map(([, bad], i) => write(`late-${i}.jsonl`, jsonl({ content: `fine ${i}` }, { content: "bad", ...bad })));
    const out = gllam("ingest", first, ...files);
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(new RegExp(`^gllam: .*late-0\\.jsonl:2: ${late[0][2]} \\[E_BAD_INPUT\\]$`));
    expect(episodes()).toBe(0);
    const skipped = gllam("ingest", first, ...files, "--skip-bad");
    expect(skipped.code).toBe(0);
    late.forEach(([, , problem], i) => {
      expect(skipped.stdout).toContain(`late-${i}.jsonl (jsonl): 1 new, 0 already stored, 1 bad records skipped`);
      expect(skipped.stdout).toMatch(new RegExp(`skipped .*late-${i}\\.jsonl:2: ${problem}`));
    });
    expect(episodes()).toBe(2 + late.length);
  });

  test("fractional epoch timestamps (Python's time.time()) are stored as whole milliseconds", () => {
    const { db, gllam } = freshDb();
    const file = write("py.jsonl", jsonl({ content: "Logged from Python.", timestamp: 1714557600.123456 }));
    expect(gllam("ingest", file)).toMatchObject({ code: 0, stderr: "" });
    const recalled = JSON.parse(runGllam(["recall", "logged", "python", "--db", db, "--json", "--embedder", "static"]).stdout);
    expect(recalled.episodes[0].occurredAt).toBe(1714557600123);
  });

  test("an impossible date is refused, not rolled over to March", () => {
    const { gllam, episodes } = freshDb();
    const out = gllam("ingest", write("feb.jsonl", jsonl({ content: "x", timestamp: "2023-02-30" })));
    expect(out.stderr).toMatch(/feb\.jsonl:1: unreadable timestamp "2023-02-30" \[E_BAD_INPUT\]/);
    expect(episodes()).toBe(0);
  });
});

describe("gllam ingest: binary files and invalid UTF-8", () => {
  test.each([
    ["noise.md", 3000],
    ["noise.txt", 200_000],
  ])("%s (%i random bytes) is refused as not text, nothing stored", (name, bytes) => {
    const { gllam, episodes } = freshDb();
    const out = gllam("ingest", write(name, noise(bytes)));
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toMatch(new RegExp(`${name.replace(".", "\\.")}: not text \\(.*\\); only UTF-8 text files are ingested \\[E_BAD_INPUT\\]$`));
    expect(episodes()).toBe(0);
  });

  test("a text file with a NUL byte after its start is not text either", () => {
    const { gllam } = freshDb();
    const out = gllam("ingest", write("nul.md", `# Notes\n\n${"Plain prose. ".repeat(1000)}\u0000 more\n`));
    expect(out.stderr).toMatch(/nul\.md: not text \(a NUL byte at byte 13009\)/);
  });

  test("invalid UTF-8 in a text file names its byte offset; --skip-bad leaves that line out", () => {
    const { gllam, episodes } = freshDb();
    const head = new TextEncoder().encode("# Caf\n\nThe first paragraph.\n\nCaf");
    const file = write("latin1.md", new Uint8Array([...head, 0xe9, ...new TextEncoder().encode(" au lait.\n\nLast paragraph.\n")]));
    expect(gllam("ingest", file).stderr).toMatch(/latin1\.md:5: invalid UTF-8 at byte 32 \[E_BAD_INPUT\]/);
    expect(episodes()).toBe(0);
    const skipped = gllam("ingest", file, "--skip-bad");
    expect(skipped.stdout).toMatch(/skipped .*latin1\.md:5: invalid UTF-8 at byte 32/);
    expect(episodes()).toBe(1);
  });
});

describe("gllam ingest: deep JSON", () => {
  test("a syntax error deep inside nested JSON has a real line:column", () => {
    const { gllam } = freshDb();
    const out = gllam("ingest", write("deep.json", `[${"[".repeat(100_000)}1,]${"]".repeat(100_000)}`));
    expect(out.stderr.trim()).toMatch(/deep\.json:1:100004: invalid JSON .*\[E_BAD_INPUT\]$/);
  });

  test("metadata nested five million deep is a coded error, not a stack overflow", () => {
    const { gllam, episodes } = freshDb();
    const depth = 5_000_000;
    const out = gllam("ingest", write("deep.jsonl", `{"content": "x", "metadata": {"a": ${"[".repeat(depth)}${"]".repeat(depth)}}}\n`));
    expect(out.stderr.trim()).toMatch(/deep\.jsonl:1: JSON nested deeper than 65 levels \[E_BAD_INPUT\]$/);
    expect(episodes()).toBe(0);
  });
});

test("a BEAM chat ingested from two folders is stored once", () => {
  const { gllam, episodes } = freshDb();
  const chat = JSON.stringify([{ batch_number: 1, time_anchor: "March-15-2024", turns: [[{ role: "user", id: 0, content: "Plan my week" }, { role: "assistant", id: 1, content: "Sure." }]] }]);
  const paths = ["one", "two"].map((folder) => {
    mkdirSync(join(dir, folder));
    return write(`${folder}/chat.json`, chat);
  });
  expect(gllam("ingest", paths[0]!).stdout).toContain("2 new, 0 already stored");
  expect(gllam("ingest", paths[1]!).stdout).toContain("0 new, 2 already stored");
  expect(episodes()).toBe(2);
});
