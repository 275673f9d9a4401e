import { describe, expect, test } from "bun:test";
import { defaultAgenticMemoryConfig } from "../../src/config/prompts.ts";
import { assessCoherence, assessFreshness, characterEntropy, computeTrustWeight, explainTrust } from "../../src/semantic/trust.ts";
import { SEED_DOC_TYPES, SEED_HANDLES, SEED_ROLES } from "./fixtures.ts";

const config = defaultAgenticMemoryConfig();
const now = Date.parse("2025-06-01T00:00:00Z");
const daysAgo = (n: number) => now - n * 86_400_000;
const prose = "The release was merged after review and deployed to production on Tuesday.";

describe("computeTrustWeight", () => {
  test.each([
    // docType, handle, role, text, age (days), expected parts [doc, source, coherence, freshness], total
    ["jira_resolved", "alice", "", prose, 3, [800, 150, 50, 50], 1000], // 1050 clamped
    ["merged_pr", "", "system_cicd", prose, 100, [800, 150, 50, 0], 1000],
    ["architecture_doc_approved", "", "tech_lead", prose, 200, [700, 100, 50, -50], 800],
    ["slack", "carol_lead", "tech_lead", "ok", 10, [600, 200, 0, 50], 850], // handle beats role
    ["email_thread", "bob", "verified_engineer", prose, 400, [400, 50, 50, -150], 350],
    ["draft", "dave_drafts", "", "asdkjh qwrtzp xcvbnm lkjhgf", 500, [200, -150, -250, -150], 10], // clamped low
    ["notion_workspace", "", "", "", undefined, [600, 0, 0, 0], 600], // custom document type rule
    ["unheard_of", "@Alice", "", "", undefined, [400, 150, 0, 0], 550], // default base; handle normalised
  ] as const)("%s / %s / %s", (docType, handle, role, text, age, parts, total) => {
    const result = computeTrustWeight({ docType, handle, role, text, authoredAt: age === undefined ? undefined : daysAgo(age) }, config, now);
    expect([result.docType.weight, result.source.weight, result.coherence.delta, result.freshness.delta]).toEqual([...parts]);
    expect(result.total).toBe(total);
    expect(result.clamped).toBe(result.raw !== total);
  });

  test.each(SEED_DOC_TYPES)("the seed's document type %j weighs %d", (docType, weight) => {
    expect(computeTrustWeight({ docType }, config).docType).toMatchObject({ weight, basis: "table" });
  });

  test.each(SEED_ROLES)("the seed's role %j adds %d", (role, weight) => {
    expect(computeTrustWeight({ docType: "slack", handle: "someone", role }, config).source).toMatchObject({ weight, basis: "role" });
  });

  test.each(SEED_HANDLES)("the seed's handle %j adds %d", (handle, weight) => {
    expect(computeTrustWeight({ docType: "slack", handle, role: "tech_lead" }, config).source).toMatchObject({ weight, basis: "handle" });
  });

  test("a handle or role named like an Object method is just unknown", () => {
    const result = computeTrustWeight({ docType: "constructor", handle: "toString", role: "__proto__" }, config);
    expect(result).toMatchObject({ total: 400, docType: { basis: "default" }, source: { weight: 0, basis: "none" } });
  });

  test("explainTrust names every part and the clamp", () => {
    const lines = explainTrust(computeTrustWeight({ docType: "jira_resolved", handle: "alice", text: prose, authoredAt: daysAgo(1) }, config, now));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toContain("jira_resolved (document type table)");
    expect(lines[1]).toContain("heuristic for handle alice");
    expect(lines[2]).toContain("prose");
    expect(lines[3]).toContain("fresh, 1 days old");
    expect(lines[4]).toContain("clamp(1050, 10, 1000) (clamped)");
  });
});

describe("coherence", () => {
  test.each([
    ["Comment 1: DB is PostgreSQL 15.", "prose"],
    ["Der Dienst läuft auf dem Server im Keller.", "prose"],
    ["asdkjh qwrtzp xcvbnm lkjhgf", "gibberish"],
    ["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "gibberish"],
    ["kJ8sd9F2mQ0pZx7LwV3nB6tY1cR4", "gibberish"],
    ["buy now!!! $$$ €€€ ### @@@ !!!", "gibberish"],
    ["PostgreSQL-15.2-alpine", "neutral"],
    ["OK", "neutral"],
    ["", "empty"],
  ] as const)("%j is %s", (text, verdict) => expect(assessCoherence(text).verdict).toBe(verdict));

  test("entropy of a uniform alphabet is log2 of its size", () => {
    expect(characterEntropy("abcd".repeat(10))).toBeCloseTo(2, 10);
    expect(characterEntropy("aaaa")).toBe(0);
  });
});

test.each([
  [undefined, "unknown", 0],
  [0, "fresh", 50],
  [29, "fresh", 50],
  [30, "current", 0],
  [182, "current", 0],
  [183, "stale", -50],
  [365, "stale", -50],
  [366, "old", -150],
] as const)("freshness at %s days: %s %d", (age, band, delta) => {
  expect(assessFreshness(age === undefined ? undefined : daysAgo(age), now)).toMatchObject({ band, delta });
});
