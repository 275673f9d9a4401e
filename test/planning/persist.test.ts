import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pddlDomainsDirFor } from "../../src/planning/persist.ts";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

const dir = makeTempDir();

describe("where generated PDDL domains go", () => {
  test.each([
    ["beside the database", "/data/memory.db", undefined, {}, "/data/memory.db.pddl"],
    ["a relative database, made absolute", "memory.db", undefined, {}, resolve("memory.db.pddl")],
    ["an in-memory database: none", ":memory:", undefined, {}, null],
    ["$GLLAM_PDDL_DOMAINS over the default", "/data/memory.db", undefined, { GLLAM_PDDL_DOMAINS: "/cache/pddl" }, "/cache/pddl"],
    ["$GLLAM_PDDL_DOMAINS for an in-memory database", ":memory:", undefined, { GLLAM_PDDL_DOMAINS: "/cache/pddl" }, "/cache/pddl"],
    ["a blank variable is unset", "/data/memory.db", undefined, { GLLAM_PDDL_DOMAINS: " " }, "/data/memory.db.pddl"],
    ["the option over everything", "/data/memory.db", "/elsewhere", { GLLAM_PDDL_DOMAINS: "/cache/pddl" }, "/elsewhere"],
    ["a relative option, made absolute", "/data/memory.db", "out/pddl", {}, resolve("out/pddl")],
    ["null: none", "/data/memory.db", null, { GLLAM_PDDL_DOMAINS: "/cache/pddl" }, null],
  ] as const)("%s", (_, dbPath, given, env, expected) => {
    expect(pddlDomainsDirFor(dbPath, given, env)).toBe(expected);
  });

  test("a library user in another folder writes nothing there: the files go beside the database", () => {
    const cwd = join(dir, "elsewhere");
    const dbDir = join(dir, "data");
    mkdirSync(cwd);
    mkdirSync(dbDir);
    const db = join(dbDir, "memory.db");
    const script = join(dir, "plan-recipes.ts");
    writeFileSync(
      script,
      `import { Gllam } from ${JSON.stringify(join(REPO_ROOT, "src/index.ts"))};
const embedder = { modelVersion: "test-4", dims: 4, embed: async (texts: string[]) => texts.map(() => new Float32Array([1, 0, 0, 0])) };
const gllam = await Gllam.open(${JSON.stringify(db)}, { embedder, staticEmbedder: null });
gllam.upsertProceduralKnowledge({ taskType: "deploy", recipe: "deploy it", pddlAction: { name: "deploy", parameters: [], preconditions: [], effects: ["(deployed)"] } });
console.log(JSON.stringify(gllam.planProcedures(["(deployed)"]).files));
gllam.close();
`,
    );
    const env: Record<string, string | undefined> = { ...process.env, GLLAM_PDDL_DOMAINS: undefined };
    const proc = Bun.spawnSync(["bun", script], { cwd, env, stdout: "pipe", stderr: "pipe" });
    expect(proc.stderr.toString()).toBe("");
    const files = JSON.parse(proc.stdout.toString());
    expect(files.domainFile).toStartWith(`${db}.pddl/`);
    expect(existsSync(files.domainFile) && existsSync(files.problemFile)).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
  });
});
