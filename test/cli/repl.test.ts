import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT, runGllam } from "../helpers.ts";
import { compiledGllam } from "../binary-build.ts";
import { Pty } from "../pty.ts";
import { installCompiled } from "../scripts/compiled.ts";

const dir = makeTempDir();
const db = join(dir, "repl.db");
const home = join(dir, "home");
const gllam = ["bun", join(REPO_ROOT, "src/cli/main.ts")];

/** The REPL's prompt, waiting for a line. */
const PROMPT = "◆  █";

/** The number of episodes `stats` printed last. */
const lastEpisodeCount = (screen: string) => Number([...screen.matchAll(/^episodes\s+(\d+)$/gm)].at(-1)?.[1]);

describe("gllam with no command, not on a terminal", () => {
  test.each([[[]], [["--db", db]]])("%j prints the usage (exit 0), as before the REPL", (args) => {
    const out = runGllam(args);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^Local agentic memory/);
    expect(out.stdout).toContain("USAGE gllam");
  });

  test("gllam repl refuses without a terminal", () => {
    const out = runGllam(["repl", "--db", db]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^gllam: the REPL needs a terminal .*\[E_USAGE\]\n$/);
  });
});

describe("the REPL in a pseudo-terminal", () => {
  test("intro with counts, commands against one open memory, errors keep the loop, Ctrl-C cancels, Ctrl-D leaves", async () => {
    expect(runGllam(["seed", "--db", db]).code).toBe(0);
    const turns = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ session_id: `s${Math.floor(i / 50)}`, speaker: "Ann", content: `note ${i} about the garden shed` }));
    writeFileSync(join(dir, "big.jsonl"), `${turns.join("\n")}\n`);
    const pty = Pty.start([...gllam, "--db", db], { cwd: dir, env: { HOME: home, XDG_CACHE_HOME: "" } });

    const intro = await pty.waitFor(/help lists the commands/);
    expect(intro).toContain(db);
    expect(intro).toContain("0 episodes · 10 nodes · 12 links · 0 procedures");
    expect(intro).toMatch(/embedder model: use-lite-512/);

    await pty.typeAtPrompt(PROMPT, "recall web server");
    await pty.waitFor(/## Caddy \(service\)/);
    await pty.typeAtPrompt(PROMPT, "recall 'how to deploy caddy' --entity caddy -k 2");
    const recalled = await pty.waitFor(/# Memory for "how to deploy caddy"[\s\S]*## Similar nodes\n1\. [^\n]+\n2\. [^\n]+\n/);
    // The model loaded for the first recall and served the second (the notice comes once per load).
    expect(recalled.match(/loading the embedding model/g)).toHaveLength(1);

    await pty.typeAtPrompt(PROMPT, "frobnicate --now");
    await pty.typeAtPrompt(PROMPT, `fact add Caddy binds_to 'Tailscale`);
    await pty.typeAtPrompt(PROMPT, "stats");
    const afterErrors = await pty.waitFor(/semantic_links\s+12/);
    expect(afterErrors).toMatch(/\ngllam: unknown command "frobnicate" \(see `gllam --help`\) \[E_USAGE\]\n/);
    expect(afterErrors).toMatch(/\ngllam: unterminated single quote at column 25 \[E_USAGE\]\n/);

    await pty.typeAtPrompt(PROMPT, "ingest big.jsonl");
    await pty.waitFor(/big\.jsonl: \d+\/30000/);
    pty.press("C-c");
    await pty.waitFor(/cancelled: ingest big\.jsonl/);
    await pty.typeAtPrompt(PROMPT, "stats");
    const stopped = lastEpisodeCount(await pty.waitFor(/^episodes\s+\d+$/gm, 30_000, 2));
    expect(stopped).toBeLessThan(30_000);
    // The abandoned ingest wrote nothing more: its memory was closed under it.
    await Bun.sleep(1500);
    await pty.typeAtPrompt(PROMPT, "stats");
    expect(lastEpisodeCount(await pty.waitFor(/^episodes\s+\d+$/gm, 30_000, 3))).toBe(stopped);

    await pty.typeAtPrompt(PROMPT, "history");
    await pty.waitFor(/ {3}1 {2}recall web server\n/);
    pty.press("C-d");
    expect(await pty.waitForExit()).toBe(0);
    expect(pty.screen()).toContain("bye");
    expect(readFileSync(join(home, ".cache/gllam/repl-history"), "utf8")).toStartWith("recall web server\nrecall 'how to deploy caddy' --entity caddy -k 2\nfrobnicate --now\n");
  });
});

describe("the REPL's start flags and leaving", () => {
  test("no database yet; the start flags apply to every command; help; Ctrl-C twice leaves", async () => {
    const fresh = join(dir, "fresh.db");
    const pty = Pty.start([...gllam, "--db", fresh, "--embedder", "static"], { cwd: dir, env: { HOME: home } });
    const intro = await pty.waitFor(/help lists the commands/);
    expect(intro).toContain(`no database at ${fresh}`);
    expect(intro).toMatch(/embedder static: static-/);

    await pty.typeAtPrompt(PROMPT, "fact add Caddy binds_to Tailscale --caveat 'Must use the FQDN'");
    await pty.waitFor(/inserted link 1 \(binds_to/);
    await pty.typeAtPrompt(PROMPT, "fact list caddy");
    await pty.waitFor(/Caddy \*\*binds_to\*\* Tailscale — caveat: Must use the FQDN/);
    await pty.typeAtPrompt(PROMPT, "help");
    const help = await pty.waitFor(/USAGE gllam/);
    expect(help).toContain("REPL commands: help, history, exit.");

    pty.press("C-c");
    await pty.waitFor(/Ctrl-C again \(or Ctrl-D, or exit\) leaves/);
    pty.press("C-c");
    expect(await pty.waitForExit()).toBe(0);
  });

  test("the seed's `gllam --embeddings-server URL` opens it too (nothing contacted until a command embeds); exit leaves", async () => {
    const pty = Pty.start([...gllam, "--embeddings-server", "http://127.0.0.1:9/v1", "--db", join(dir, "remote.db")], { cwd: dir, env: { HOME: home } });
    expect(await pty.waitFor(/help lists the commands/)).toMatch(/embedder http: http:127\.0\.0\.1:9\/v1/);
    await pty.typeAtPrompt(PROMPT, "exit");
    expect(await pty.waitForExit()).toBe(0);
  });
});

describe("the REPL of the compiled binary", () => {
  test("from an empty folder with a fresh HOME: seed, recall and leave, no node_modules or checkout needed", async () => {
    const { runDir, home: freshHome } = installCompiled(await compiledGllam(), join(makeTempDir("gllam-repl-bin-"), "work"));
    const pty = Pty.start([join(runDir, "gllam")], { cwd: runDir, env: { HOME: freshHome, PATH: "/usr/bin:/bin" } });
    expect(await pty.waitFor(/help lists the commands/)).toContain(`no database at ${join(runDir, "gllam.db")}`);
    await pty.typeAtPrompt(PROMPT, "seed");
    await pty.waitFor(/10 nodes, 12 new links/);
    await pty.typeAtPrompt(PROMPT, "recall web server");
    await pty.waitFor(/## Caddy \(service\)/);
    await pty.typeAtPrompt(PROMPT, "exit");
    expect(await pty.waitForExit()).toBe(0);
  });
});
