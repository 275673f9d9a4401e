import { describe, expect, test } from "bun:test";
import type { SemanticNode } from "../../src/memory/types.ts";
import { formatDay, formatRecallMarkdown } from "../../src/retrieval/format.ts";
import type { RecalledLink, RecallResult } from "../../src/retrieval/recall.ts";

const node: SemanticNode = {
  id: "caddy",
  scope: "default",
  name: "Caddy",
  type: "service",
  aliases: ["caddy server"],
  contextPrompt: "Web server.",
  taxonomyPath: "/Infra/Web",
  isCategory: false,
  caveatSummary: "",
  validFrom: null,
  validUntil: null,
  metadata: {},
  createdAt: 0,
  updatedAt: 0,
};

function link(overrides: Partial<RecalledLink>): RecalledLink {
  return {
    id: 1,
    scope: "default",
    sourceId: "caddy",
    targetId: "tailscale",
    relationship: "binds_to",
    caveats: "",
    conditions: "",
    validFrom: Date.parse("2025-01-10"),
    validUntil: null,
    recordedAt: 0,
    expiredAt: null,
    originSourceId: null,
    trustWeight: 500,
    episodeId: null,
    supersededBy: null,
    endReason: null,
    evidenceCount: 1,
    metadata: {},
    direction: "out",
    otherId: "tailscale",
    otherName: "Tailscale",
    ...overrides,
  };
}

const result = (overrides: Partial<RecallResult>): RecallResult => ({
  query: "deploy caddy",
  scope: "default",
  asOf: 0,
  focus: [],
  similar: [],
  episodes: [],
  unresolvedEntities: [],
  denseUsed: true,
  warnings: [],
  ...overrides,
});

describe("formatRecallMarkdown", () => {
  test("prints the node, its links with caveats and conditions, and similar nodes", () => {
    const text = formatRecallMarkdown(
      result({
        focus: [
          {
            node,
            matchedBy: "entity",
            links: [
              link({ caveats: "Must use Tailscale FQDN", conditions: "tailnet sites", evidenceCount: 3 }),
              link({ id: 2, relationship: "scrapes", direction: "in", otherId: "prom", otherName: "Prometheus", validUntil: Date.parse("2025-06-01") }),
            ],
          },
        ],
        similar: [{ nodeId: "caddy", name: "Caddy", type: "service", distance: 0.3981 }],
      }),
    );
    expect(text).toContain('# Memory for "deploy caddy"');
    expect(text).toContain("## Caddy (service)\nWeb server.");
    expect(text).toContain("_id caddy · named in the query · aliases: caddy server · taxonomy: /Infra/Web_");
    expect(text).toContain(
      "- Caddy **binds_to** Tailscale — caveat: Must use Tailscale FQDN — when: tailnet sites (since 2025-01-10, trust 500, asserted 3x) [link 1]",
    );
    expect(text).toContain("- Prometheus **scrapes** Caddy (2025-01-10 to 2025-06-01, trust 500) [link 2]");
    expect(text).toContain("## Similar nodes\n1. Caddy (service) — distance 0.398");
  });

  test("says so when nothing matches and names unknown entities", () => {
    const text = formatRecallMarkdown(result({ unresolvedEntities: ["mysql"] }));
    expect(text).toContain('> No node named "mysql" in scope default.');
    expect(text).toContain("_Nothing in memory matches this query._");
    expect(text).not.toContain("## Similar nodes");
  });

  test("a node without links says so", () => {
    expect(formatRecallMarkdown(result({ focus: [{ node, matchedBy: "similarity", links: [] }] }))).toContain("### Links\n- (no active links)");
  });

  test("formatDay is UTC", () => expect(formatDay(Date.parse("2025-01-10T23:30:00-05:00"))).toBe("2025-01-11"));
});

test("a fact's source, what it beat, open contradictions, fallacies and compacted caveats are shown", () => {
  const fact = link({
    source: { id: "source:jira_resolved:alice", docType: "jira_resolved", handle: "alice", displayName: "Alice", trustWeight: 950 },
    supersedes: [{ linkId: 7, targetName: "Docker", trustWeight: 100, endReason: "superseded" }],
    contradictions: [{ id: "contradiction:1:9", name: "Caddy binds_to: Tailscale vs LAN", status: "open", linkIds: [1, 9] }],
    fallacies: ["post_hoc"],
    caveats: "hidden",
    caveatInline: false,
  });
  const text = formatRecallMarkdown(result({ focus: [{ node, matchedBy: "entity", links: [fact] }] }));
  expect(text).toContain("- Caddy **binds_to** Tailscale (since 2025-01-10, trust 500, from jira_resolved/Alice) [link 1]");
  expect(text).toContain("  - caveat compacted into the caveat summary\n  - prevailed over Docker (trust 100) [link 7]");
  expect(text).toContain("  - ⚠ open contradiction contradiction:1:9: Caddy binds_to: Tailscale vs LAN\n  - fallacies flagged: post_hoc");
  expect(text).not.toContain("hidden");
});
