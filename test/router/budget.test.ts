import { describe, expect, test } from "bun:test";
import { estimateTokens, groupHeader, packContext, renderSections, sectionHeader, type ContextItem } from "../../src/router/budget.ts";

const item = (key: string, value: number, text: string, extra: Partial<ContextItem> = {}): ContextItem => ({ key, section: "episodes", value, text, order: 0, ...extra });

test("estimateTokens is characters / 4, rounded up", () => {
  expect([estimateTokens(""), estimateTokens("abc"), estimateTokens("abcd"), estimateTokens("abcde")]).toEqual([0, 1, 1, 2]);
});

describe("packContext", () => {
  test("takes the most valuable first and charges each heading once", () => {
    const items = [item("a", 0.5, "- aaaa", { group: "s1" }), item("b", 0.9, "- bbbb", { group: "s1" }), item("c", 0.7, "- cccc", { group: "s2" })];
    const { chosen, tokens } = packContext(items, 1000, 3);
    expect(chosen.map((i) => i.key)).toEqual(["b", "c", "a"]);
    // The whole context in characters: the fixed 3 tokens, the section heading, two group headings and three lines.
    expect(tokens).toBe(estimateTokens(`${"x".repeat(12)}${sectionHeader("episodes")}${groupHeader("s1")}${groupHeader("s2")}${"- aaaa\n".repeat(3)}`));
  });

  test("a smaller item fills the room a larger one could not", () => {
    const big = item("big", 0.9, `- ${"x".repeat(400)}`);
    const small = item("small", 0.1, "- y");
    const { chosen, tokens } = packContext([big, small], 20, 0);
    expect(chosen.map((i) => i.key)).toEqual(["small"]);
    expect(tokens).toBeLessThanOrEqual(20);
  });

  test("text already in is not repeated (case and punctuation aside)", () => {
    const items = [item("a", 0.9, "- [e1] Ann: Hello, world!", { dedup: "Hello, world!" }), item("b", 0.8, "- [e2] Bo: hello world", { dedup: "hello world" })];
    expect(packContext(items, 1000, 0).chosen.map((i) => i.key)).toEqual(["a"]);
  });

  test("nothing fits: nothing is taken", () => {
    expect(packContext([item("a", 1, "- abc")], 5, 5).chosen).toEqual([]);
  });

  test("counts characters of the whole context: lines that each round up still fit together", () => {
    // Five 5-character lines ("- abc" and its newline would be 2 tokens each, 10 in all) are 30 characters: 8 tokens.
    const items = Array.from({ length: 5 }, (_, i) => item(`k${i}`, 1 - i / 10, `- ab${i}`));
    const fixed = sectionHeader("episodes").length;
    const { chosen, tokens } = packContext(items, Math.ceil((fixed + 30) / 4), 0);
    expect(chosen).toHaveLength(5);
    expect(tokens).toBe(estimateTokens(renderSections(chosen)));
  });

  test("groups sharing a heading (two sessions on one day) are charged and rendered apart", () => {
    const items = [
      item("a", 0.9, "[e1] Ann: one", { group: "2023-05-08", groupId: "s1", order: 1 }),
      item("b", 0.8, "[e9] Bo: two", { group: "2023-05-08", groupId: "s2", order: 9 }),
      item("c", 0.7, "[e2] Ann: three", { group: "2023-05-08", groupId: "s1", order: 2 }),
    ];
    const { chosen, tokens } = packContext(items, 1000, 0);
    const rendered = renderSections(chosen);
    expect(rendered).toBe("\n## Episodes\n### 2023-05-08\n[e1] Ann: one\n[e2] Ann: three\n### 2023-05-08\n[e9] Bo: two\n");
    expect(tokens).toBe(estimateTokens(rendered));
  });

  test("the rendered sections never estimate above the packed tokens", () => {
    const items = Array.from({ length: 50 }, (_, i) => item(`k${i}`, (i * 7) % 11, `- line ${i} ${"w".repeat(i % 13)}`, { group: `s${i % 4}`, section: i % 5 === 0 ? "facts" : "episodes", order: i }));
    for (const budget of [10, 50, 120, 400]) {
      const { chosen, tokens } = packContext(items, budget, 0);
      expect(tokens).toBeLessThanOrEqual(budget);
      expect(estimateTokens(renderSections(chosen))).toBeLessThanOrEqual(tokens);
    }
  });
});

describe("packContext: graded compaction", () => {
  const long = (key: string, value: number) => item(key, value, `- [${key}] ${"x".repeat(96)}`, { compact: `- [${key} excerpt] ${"y".repeat(16)}`, group: "s" });

  test("the first fullItems taken keep their text, later ones go in compact, and more of them fit", () => {
    const items = Array.from({ length: 10 }, (_, i) => long(`e${i}`, 1 - i / 20));
    // Two whole lines and eight compact ones, with no room to restore one more.
    const budget = estimateTokens(`${sectionHeader("episodes")}${groupHeader("s")}${`${items[0]!.text}\n`.repeat(2)}${`${items[0]!.compact!}\n`.repeat(8)}`);
    const whole = packContext(items, budget, 0);
    const graded = packContext(items, budget, 0, { fullItems: 2 });
    expect(whole.chosen.length).toBeLessThan(6);
    expect(graded.chosen.map((i) => i.key)).toEqual(items.map((i) => i.key));
    expect(graded.chosen.slice(0, 2).map((i) => i.text)).toEqual(items.slice(0, 2).map((i) => i.text));
    expect(graded.chosen.slice(2).every((i) => i.text.includes("excerpt"))).toBe(true);
    expect(graded.tokens).toBe(budget);
    expect(estimateTokens(renderSections(graded.chosen))).toBeLessThanOrEqual(graded.tokens);
  });

  test("the room left restores compacted items to their text, most valuable first; a budget that holds everything compacts nothing", () => {
    const items = Array.from({ length: 4 }, (_, i) => long(`e${i}`, 1 - i / 10));
    expect(packContext(items, 1000, 0, { fullItems: 1 }).chosen.map((i) => i.text)).toEqual(items.map((i) => i.text));
    // Room for one whole line and three compact ones, plus one restoration: the second item's, not the last's.
    const budget = estimateTokens(`${sectionHeader("episodes")}${groupHeader("s")}${`${items[0]!.text}\n`.repeat(2)}${`${items[1]!.compact!}\n`.repeat(2)}`);
    const { chosen, tokens } = packContext(items, budget, 0, { fullItems: 1 });
    expect(chosen.map((i) => i.text.includes("excerpt"))).toEqual([false, false, true, true]);
    expect(tokens).toBeLessThanOrEqual(budget);
  });
});

test("renderSections: sections in their fixed order, groups by their first item, items by order", () => {
  const chosen = [
    item("e2", 0.9, "- e2", { group: "session b", order: 20 }),
    item("e1", 0.5, "- e1", { group: "session a", order: 10 }),
    item("e3", 0.4, "- e3", { group: "session a", order: 5 }),
    item("f1", 0.3, "- fact", { section: "facts", order: 0 }),
  ];
  expect(renderSections(chosen)).toBe("\n## Facts\n- fact\n\n## Episodes\n### session a\n- e3\n- e1\n### session b\n- e2\n");
});
