import { describe, expect, test } from "bun:test";
import { detectFallacies, planFallacyImpact, rationaleMatches, type ClaimContext, type FallacyKind } from "../../src/semantic/fallacies.ts";

const claim = (text: string, extra: Partial<ClaimContext> = {}): ClaimContext => ({ text, relationship: "related_to", subjectName: "A", targetName: "B", ...extra });
const kinds = (c: ClaimContext) => detectFallacies(c).map((f) => f.kind);

describe("detectFallacies (rule cues)", () => {
  test.each<[string, Partial<ClaimContext>, FallacyKind[]]>([
    ["We deployed Caddy, then the server rebooted, so Caddy crashed the server", {}, ["post_hoc"]],
    ["Right after the upgrade the cache emptied, which means the upgrade wiped it", {}, ["post_hoc"]],
    ["CPU usage rose whenever user logins increased", {}, ["cum_hoc"]],
    ["Error rates correlate with the marketing emails", {}, ["cum_hoc"]],
    ["Either we delete the database or the migration fails", {}, ["false_dilemma"]],
    ["Either we patch it tonight or tomorrow, or both", {}, []],
    ["Postgres is reliable because Postgres never fails", {}, ["begging_question"]],
    ["Caddy is fast because Caddy uses Go's HTTP server", {}, []],
    ["The systemd service restarts nightly, and the cloud service is billed per request", {}, ["equivocation"]],
    ["Don't listen to Dave, he's an intern", {}, ["ad_hominem"]],
    ["So you're saying we should never deploy again", {}, ["straw_man"]],
    ["But what about the coffee machine", { activeContradiction: true, targetIsNeighbour: false }, ["red_herring"]],
    ["But what about the coffee machine", { activeContradiction: false }, []],
    ["But what about the coffee machine", { activeContradiction: true, targetIsNeighbour: true }, []],
    ["Caddy binds to the Tailscale FQDN on port 443", {}, []],
    ["", {}, []],
  ])("%j", (text, extra, expected) => expect(kinds(claim(text, extra))).toEqual(expected));

  test("a claim whose proof is itself begs the question", () => {
    expect(kinds(claim("the cache is warm", { proof: "The cache is warm." }))).toEqual(["begging_question"]);
  });

  test("equivocation names the term and its senses", () => {
    expect(detectFallacies(claim("The systemd service restarts nightly, and the cloud service is billed per request"))[0]).toMatchObject({
      term: "service",
      senses: ["systemd", "cloud"],
    });
  });
});

describe("planFallacyImpact", () => {
  const impact = (kind: FallacyKind, relationship: string, proof = "") => planFallacyImpact([{ kind, cue: "x" }], relationship, proof);
  test.each<[FallacyKind, string, string, Record<string, unknown>]>([
    ["post_hoc", "causes", "", { relationship: "happened_before" }],
    ["post_hoc", "runs_on", "", { relationship: "runs_on" }],
    ["cum_hoc", "depends_on", "", { relationship: "correlates_with" }],
    ["cum_hoc", "depends_on", "a controlled experiment", { relationship: "depends_on" }],
    ["false_dilemma", "must_follow_rule", "", { relationship: "presents_option", excludeFromRules: true }],
    ["false_dilemma", "chooses", "", { relationship: "chooses", excludeFromRules: true }],
    ["begging_question", "is", "", { plannerSkip: true }],
    ["ad_hominem", "version_is", "", { flagSourceAttack: true, relationship: "version_is" }],
    ["straw_man", "has_state", "", { refuseOverrideWithoutRationale: true }],
    ["red_herring", "mentions", "", { suppressExpansion: true }],
  ])("%s on %s", (kind, relationship, proof, expected) => expect(impact(kind, relationship, proof)).toMatchObject(expected));

  test("no findings: nothing changes", () => {
    expect(planFallacyImpact([], "causes")).toMatchObject({ relationship: "causes", notes: [], plannerSkip: false, suppressExpansion: false });
  });
});

test.each([
  ["The Friday freeze predates automated rollbacks", true],
  ["shipping matters", false],
  ["freeze", false], // one word is not a rationale
])("rationaleMatches(%j) is %s", (rationale, expected) => {
  expect(rationaleMatches(rationale, { targetName: "Friday freeze", caveats: "", conditions: "" })).toBe(expected);
});
