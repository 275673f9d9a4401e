import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { Gllam } from "../../src/gllam/gllam.ts";
import { Store } from "../../src/engine/store.ts";
import { expectGllamError, makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";

const dir = makeTempDir();
let n = 0;
const freshFolder = () => {
  const folder = join(dir, `case-${++n}`);
  mkdirSync(folder);
  return folder;
};
const companions = (folder: string) => readdirSync(folder).filter((f) => f.endsWith("-wal") || f.endsWith("-shm"));

/** A memory written and closed (so its folder holds the file alone, in WAL mode). */
async function writtenMemory(folder: string): Promise<string> {
  const path = join(folder, "memory.db");
  const gllam = await Gllam.open(path, { staticEmbedder: null });
  gllam.upsertNode({ id: "caddy", name: "Caddy" });
  gllam.close();
  expect(readdirSync(folder)).toEqual(["memory.db"]);
  return path;
}

describe("read-only handles leave nothing beside the file", () => {
  test("a read-only store reads a WAL file and leaves no -wal or -shm", async () => {
    const folder = freshFolder();
    const path = await writtenMemory(folder);
    const gllam = await Gllam.open(path, { readOnly: true, staticEmbedder: null });
    expect(gllam.getNode("caddy")?.name).toBe("Caddy");
    expect(() => gllam.dbRO().run("DELETE FROM semantic_nodes")).toThrow(/readonly|read-only/i);
    gllam.close();
    expect(readdirSync(folder)).toEqual(["memory.db"]);
  });

  test("while a writer has it open, a read-only store shares its -shm and leaves it to the writer", async () => {
    const folder = freshFolder();
    const path = await writtenMemory(folder);
    const writer = await Gllam.open(path, { staticEmbedder: null });
    const reader = await Gllam.open(path, { readOnly: true, staticEmbedder: null });
    writer.upsertNode({ id: "tailscale", name: "Tailscale" });
    expect(reader.getNode("tailscale")?.name).toBe("Tailscale");
    reader.close();
    expect(companions(folder).toSorted()).toEqual(["memory.db-shm", "memory.db-wal"]);
    writer.close();
    expect(readdirSync(folder)).toEqual(["memory.db"]);
  });

  test("gllam recall, stats, fact list and path leave no -wal or -shm", () => {
    const folder = freshFolder();
    const db = join(folder, "seeded.db");
    const gllam = (...args: string[]) => runGllam([...args, "--db", db, "--embedder", "static"]);
    expect(gllam("seed").code).toBe(0);
    expect(readdirSync(folder)).toEqual(["seeded.db"]);
    for (const args of [["recall", "how", "to", "deploy", "caddy"], ["stats"], ["fact", "list", "Caddy"], ["path", "Caddy", "Docker"]]) {
      expect(gllam(...args).code).toBe(0);
      expect(readdirSync(folder)).toEqual(["seeded.db"]);
    }
  });
});

const uid = process.getuid?.() ?? -1;
const setpriv = Bun.which("setpriv");
/** Runs the CLI as a user without write access to the test's files: nobody (via setpriv) when the tests run as root. */
function runUnprivileged(args: string[], home: string) {
  const cli = ["bun", join(REPO_ROOT, "src/cli/main.ts"), ...args];
  const command = uid === 0 ? [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups", ...cli] : cli;
  const proc = Bun.spawnSync(command, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

// As root, chmod stops nobody: the CLI then runs as nobody (setpriv). Without root, chmod suffices.
describe.skipIf(uid === 0 && !setpriv)("files without write permission (root runs the CLI as nobody)", () => {
  const prepare = async (folderMode: number, fileMode: number) => {
    const home = freshFolder();
    chmodSync(home, 0o777);
    chmodSync(dir, 0o755);
    const folder = freshFolder();
    const path = await writtenMemory(folder);
    chmodSync(path, fileMode);
    chmodSync(folder, folderMode);
    return { home, folder, path };
  };

  test("a read-only folder: read-only commands say exactly why they cannot read (not E_NOT_SQLITE); they can while the owner has it open", async () => {
    const { home, folder, path } = await prepare(0o555, 0o666);
    const refused = runUnprivileged(["stats", "--db", path], home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot read ${path} without leaving memory.db-shm beside it: it is in WAL mode, has no -shm yet, and its folder ${folder} is not writable`);
    expect(refused.stderr).toEndWith("[E_CANNOT_OPEN]\n");
    expect(readdirSync(folder)).toEqual(["memory.db"]);
    const owner = await Store.open(path);
    const shared = runUnprivileged(["stats", "--db", path, "--json"], home);
    expect(shared.stderr).toBe("");
    expect(JSON.parse(shared.stdout).tables.semantic_nodes).toBe(1);
    owner.close();
    expect(runUnprivileged(["fact", "add", "a", "uses", "b", "--db", path], home).stderr).toContain(`its folder ${folder} is not writable (SQLite keeps memory.db-wal and -shm there) [E_CANNOT_OPEN]`);
    chmodSync(folder, 0o755);
  });

  test("a read-only file: a clear refusal to read (it would leave -shm behind) and to write, nothing created", async () => {
    const { home, folder, path } = await prepare(0o777, 0o444);
    const read = runUnprivileged(["stats", "--db", path], home);
    expect(read).toMatchObject({ code: 1, stdout: "" });
    expect(read.stderr).toContain("it is in WAL mode, has no -shm yet, and the file is read-only");
    const write = runUnprivileged(["fact", "add", "a", "uses", "b", "--db", path], home);
    expect(write.stderr).toBe(`gllam: cannot write ${path}: the file is read-only (commands that only read, like recall, can open it) [E_CANNOT_OPEN]\n`);
    expect(readdirSync(folder)).toEqual(["memory.db"]);
  });
});

const unshare = Bun.which("unshare");
const canMount = uid === 0 && unshare !== null && Bun.spawnSync([unshare, "-m", "--propagation", "private", "true"]).exitCode === 0;

// A read-only file system (EROFS) is made in a private mount namespace, so nothing outside the test sees it.
test.skipIf(!canMount)("a read-only file system: read with immutable=1 (nobody can change the file there); writing is refused", () => {
  const mountPoint = freshFolder();
  const proc = Bun.spawnSync([unshare!, "-m", "--propagation", "private", "bun", join(REPO_ROOT, "test/fixtures/read-only-mount.ts"), mountPoint], { stdout: "pipe", stderr: "pipe" });
  expect(proc.stderr.toString()).toBe("");
  const seen = JSON.parse(proc.stdout.toString());
  expect(seen.name).toBe("Caddy");
  expect(seen.files).toEqual(["memory.db"]);
  expect(seen.write).toMatchObject({ code: "E_CANNOT_OPEN", message: expect.stringContaining("it is on a read-only file system") });
  expect(readdirSync(mountPoint)).toEqual([]); // the mount never existed out here
});

describe("commands that change memory never create it", () => {
  test.each([
    [["forget", "node", "caddy"]],
    [["forget", "link", "1"]],
    [["fact", "invalidate", "1"]],
    [["fact", "resolve", "contradiction:1:2", "1"]],
  ])("%j at a mistyped path: E_NOT_FOUND naming the path, no file", (args) => {
    const path = join(freshFolder(), "mistyped.db");
    const run = runGllam([...args, "--db", path]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toStartWith(`gllam: no database at ${path} (`);
    expect(run.stderr).toEndWith("[E_NOT_FOUND]\n");
    expect(existsSync(path)).toBe(false);
  });
});

describe("--db :memory:", () => {
  test("the library: one in-memory database that both handles see; no file", async () => {
    const folder = freshFolder();
    const gllam = await Gllam.open(":memory:", { staticEmbedder: null });
    gllam.upsertNode({ id: "caddy", name: "Caddy" });
    expect(gllam.getNode("caddy")?.name).toBe("Caddy");
    expect(gllam.stats()).toMatchObject({ path: ":memory:", fileBytes: 0, tables: { semantic_nodes: 1 } });
    gllam.close();
    await expectGllamError(Gllam.open(":memory:", { readOnly: true }), "E_NOT_FOUND", /in-memory database \(:memory:\) starts empty: there is nothing in it to read/);
    expect(readdirSync(folder)).toEqual([]);
  });

  test("the CLI writes to memory, not to a file named :memory:", () => {
    const cwd = freshFolder();
    const added = runGllam(["fact", "add", "Caddy", "runs_on", "homelab", "--db", ":memory:", "--json"], { cwd });
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ action: "inserted", created: ["caddy", "homelab"] });
    const recalled = runGllam(["stats", "--db", ":memory:"], { cwd });
    expect(recalled).toMatchObject({ code: 1, stderr: "gllam: an in-memory database (:memory:) starts empty: there is nothing in it to read [E_NOT_FOUND]\n" });
    expect(readdirSync(cwd)).toEqual([]);
  });
});
