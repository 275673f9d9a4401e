import { describe, expect, test } from "bun:test";
import { createMentionMatcher, tokenizeWords } from "../../src/episodic/linker.ts";

const match = createMentionMatcher([
  { id: "nyc", name: "New York City", aliases: ["NYC"] },
  { id: "ny", name: "New York", aliases: [] },
  { id: "caddy", name: "Caddy", aliases: ["caddy server"] },
  { id: "x", name: "X", aliases: [] },
]);

describe("createMentionMatcher", () => {
  test.each([
    ["I flew to new york city", ["nyc", "ny"]],
    ["NYC in May", ["nyc"]],
    ["caddy's config", ["caddy"]],
    ["Caddy, then Caddy again", ["caddy"]],
    ["Caddyfile is not Caddy the word", ["caddy"]],
    ["x marks the spot", []],
    ["", []],
  ])("%p", (text, expected) => {
    expect(match(text).sort()).toEqual([...expected].sort());
  });

  test("tokenizeWords keeps inner apostrophes and dots, and any script", () => {
    expect(tokenizeWords("Don't stop: v1.2 — São Paulo!")).toEqual(["don't", "stop", "v1.2", "são", "paulo"]);
  });
});
