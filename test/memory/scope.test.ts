import { describe, expect, test } from "bun:test";
import { parseScope } from "../../src/memory/parse.ts";
import { MAX_SCOPE_LENGTH } from "../../src/memory/types.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

describe("ScopeSchema: one normalisation for every scope", () => {
  test.each([
    [undefined, "default"],
    ["default", "default"],
    [" x ", "x"],
    ["\tteam a\n", "team a"],
    ["cafe\u0301", "caf\u00e9"], // decomposed é becomes the composed one: one scope, not two that look alike
    ["Ünïcode ✓", "Ünïcode ✓"],
    ["x".repeat(MAX_SCOPE_LENGTH), "x".repeat(MAX_SCOPE_LENGTH)],
  ])("%j is the scope %j", (input, scope) => expect(parseScope(input)).toBe(scope));

  test.each([
    ["", /must not be empty/],
    ["   ", /must not be empty/],
    ["team/a", /must not contain "\/"/],
    ["/", /must not contain "\/"/],
    ["a\u0000b", /control or invisible/],
    ["a\u001bb", /control or invisible/],
    ["a\u200bb", /control or invisible/], // zero-width space: "ab" and "a\u200bb" would look alike
    ["a\u2028b", /control or invisible/],
    ["a\ud800b", /control or invisible/], // a lone surrogate
    ["x".repeat(MAX_SCOPE_LENGTH + 1), new RegExp(`at most ${MAX_SCOPE_LENGTH}`)],
    [5, /must be a string/],
    [null, /must be a string/],
  ])("%j is refused", async (input, message) => {
    const error = await expectGllamError(() => parseScope(input, "--scope"), "E_BAD_INPUT", message);
    expect(error.message).toStartWith("invalid --scope ");
    expect(error.message.length).toBeLessThan(200);
  });
});

test("a padded scope reaches the same memory on write and read, through every input", async () => {
  const gllam = await openTempGllam(makeTempDir());
  gllam.upsertNode({ id: "team/caddy", name: "Caddy", scope: " team " });
  gllam.addEpisodes([{ scope: "team\n", sessionId: "s", seq: 0, content: "Caddy serves the team wiki" }]);
  expect(gllam.getNode("team/caddy", { scope: "team" })?.scope).toBe("team");
  expect(gllam.findNodesByName("caddy", "  team").map((n) => n.id)).toEqual(["team/caddy"]);
  expect(gllam.getRecentEpisodes(5, { scope: " team " }).map((e) => e.content)).toEqual(["Caddy serves the team wiki"]);
  const recalled = await gllam.recall("team wiki", { scope: "team ", entities: ["Caddy"] });
  expect(recalled.scope).toBe("team");
  expect(recalled.focus.map((f) => f.node.id)).toEqual(["team/caddy"]);
  await expectGllamError(() => gllam.recall("wiki", { scope: "team/x" }), "E_BAD_INPUT", /invalid scope "team\/x"/);
  gllam.close();
});
