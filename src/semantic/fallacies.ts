/**
 * Logical fallacies (seed: "Logical Fallacy Taxonomy"), pure: rule-based cue detection on a
 * claim's text and structure, and each kind's engine impact. A flagged claim is always stored,
 * with a fallacy node; the impact changes how the engine may use it. An LLM judge can add
 * findings through FallacyJudge.
 */
import * as v from "valibot";
import { describeError } from "../engine/errors.ts";
import { describeIssues } from "../memory/parse.ts";
import { normalizeEntityName } from "./names.ts";

export const FALLACY_KINDS = ["post_hoc", "cum_hoc", "false_dilemma", "begging_question", "equivocation", "ad_hominem", "straw_man", "red_herring"] as const;
export type FallacyKind = (typeof FALLACY_KINDS)[number];

export const FallacyFindingSchema = v.object({
  kind: v.picklist(FALLACY_KINDS),
  /** The words (or structure) that gave it away. */
  cue: v.pipe(v.string(), v.maxLength(500)),
  /** equivocation: the ambiguous term and the senses it is used in. */
  term: v.optional(v.string()),
  senses: v.optional(v.array(v.string())),
});
export type FallacyFinding = v.InferOutput<typeof FallacyFindingSchema> & { detector?: string };

export type ClaimContext = {
  text: string;
  relationship: string;
  subjectName: string;
  targetName: string;
  /** Explicit proof offered for the claim. */
  proof?: string;
  /** The subject has an open contradiction, or this claim meets an active one on an exclusive relationship. */
  activeContradiction?: boolean;
  /** The target is already linked to the subject (so the claim stays on topic). */
  targetIsNeighbour?: boolean;
};

const CAUSAL = new Set(["causes", "caused", "led_to", "leads_to", "results_in", "triggers", "triggered"]);
const HARD_DEPENDENCY = new Set(["depends_on", "requires"]);
const RULES = new Set(["must_follow_rule", "must_follow", "global_rule", "global_constraint"]);
const STOPWORDS = new Set(
  "a an the and or but if of to in on at by for with from into onto is are was were be been being it its this that these those we you they he she i our their his her my your so then than as not no do does did has have had will would can could should must just also very".split(
    " ",
  ),
);

const POST_HOC = [
  /\b(after|once|following|right after|ever since)\b[^.!?]*?\b(so|therefore|thus|hence|which means|that'?s why|must have)\b/i,
  /\bthen\b[^.!?]*?\b(so|therefore|thus|hence)\b[^.!?]*?\b(caus\w*|crash\w*|broke|brought down|made|led to)\b/i,
];
const CUM_HOC = /\b(whenever|every time|each time|coincid\w*|correlat\w*|(rises?|rose|grows?|grew|increase[sd]?|drops?|dropped|falls?|fell) (together )?(with|as|when)|goes (up|down) (with|as|when))\b/i;
const FALSE_DILEMMA = [/\beither\b[^.!?]{1,200}?\bor\b/i, /\b(only two (options|choices|ways)|no other (option|choice|way)|the only alternative)\b/i];
const NOT_A_DILEMMA = /\b(or both|neither|among others|or something else)\b/i;
const SELF_EVIDENT = /\b(by definition|because it is true|because it'?s true|self-evident(ly)?|because i said so)\b/i;
const AD_HOMINEM =
  /\b(idiot|moron|incompetent|clueless|liar|stupid|can'?t be trusted|don'?t listen to|what would \w+ know|(he|she|they)('?s| is| are) (just )?(an? )?(intern|junior|amateur|fool|joke)|who cares what \w+ (says|thinks))\b/i;
const STRAW_MAN =
  /\b(so you('?re| are) saying|so (basically |essentially )?(they|you|he|she) want(s)? (us )?to|(they|he|she) (basically|essentially|just) want(s)? (us )?to|which amounts to saying|nobody (would|could) (seriously )?(ever )?|in other words,? (we|they) (should|must|can) (never|always))/i;
const RED_HERRING = /\b(but what about|what about the|speaking of|by the way|on (an?|another) (unrelated|different|side) note|more importantly|let'?s not forget|the real (issue|problem) is|instead of (talking|discussing))\b/i;

const contentWords = (text: string) =>
  normalizeEntityName(text)
    .split(" ")
    .filter((w) => w.length > 1 && !STOPWORDS.has(w));

/** "X is reliable because X never fails": the premise only restates the conclusion's subject. */
function detectCircularity(text: string, proof: string | undefined): string | undefined {
  if (proof && normalizeEntityName(proof) === normalizeEntityName(text) && text.trim()) return "the proof offered is the claim itself";
  const selfEvident = text.match(SELF_EVIDENT);
  if (selfEvident) return selfEvident[0];
  const split = text.match(/^(.*?)\b(because|since|given that)\b(.*)$/i);
  if (!split) return undefined;
  const [conclusion, premise] = [contentWords(split[1]!), contentWords(split[3]!)];
  if (conclusion.length === 0 || premise.length === 0 || conclusion[0] !== premise[0]) return undefined;
  const fresh = premise.filter((w) => !conclusion.includes(w));
  const otherEntities = (split[3]!.match(/\b[A-Z][\w.-]*/g) ?? []).filter((w) => normalizeEntityName(w) !== conclusion[0]);
  return fresh.length <= 3 && otherEntities.length === 0 ? `"${split[2]}" premise restates its subject "${conclusion[0]}"` : undefined;
}

/** "systemd service ... cloud service": one term, two different qualifiers. */
function detectEquivocation(text: string): FallacyFinding | undefined {
  const words = normalizeEntityName(text).split(" ");
  const modifiers = new Map<string, string[]>();
  words.forEach((word, i) => {
    const before = words[i - 1];
    if (i === 0 || word.length < 3 || STOPWORDS.has(word) || !before || STOPWORDS.has(before) || before.length < 3) return;
    modifiers.set(word, [...(modifiers.get(word) ?? []), before]);
  });
  for (const [term, mods] of modifiers) {
    const senses = [...new Set(mods)];
    if (senses.length >= 2 && words.filter((w) => w === term).length >= 2) return { kind: "equivocation", cue: `"${term}" used as ${senses.map((s) => `${s} ${term}`).join(" and ")}`, term, senses };
  }
  return undefined;
}

/** Rule-based findings, in a fixed order; at most one of each kind. */
export function detectFallacies(claim: ClaimContext): FallacyFinding[] {
  const text = claim.text;
  const findings: FallacyFinding[] = [];
  const add = (kind: FallacyKind, cue: string | undefined) => cue && findings.push({ kind, cue, detector: "rules" });
  if (text.trim()) {
    add("post_hoc", POST_HOC.map((re) => text.match(re)?.[0]).find(Boolean));
    add("cum_hoc", text.match(CUM_HOC)?.[0]);
    if (!NOT_A_DILEMMA.test(text)) add("false_dilemma", FALSE_DILEMMA.map((re) => text.match(re)?.[0]).find(Boolean));
    const equivocation = detectEquivocation(text);
    if (equivocation) findings.push({ ...equivocation, detector: "rules" });
    add("ad_hominem", text.match(AD_HOMINEM)?.[0]);
    add("straw_man", text.match(STRAW_MAN)?.[0]);
    const distraction = text.match(RED_HERRING)?.[0];
    if (distraction && claim.activeContradiction && !claim.targetIsNeighbour) add("red_herring", `${distraction} (while a contradiction is open)`);
  }
  add("begging_question", detectCircularity(text, claim.proof));
  return findings;
}

export type FallacyImpact = {
  /** The relationship to store (downgraded by post_hoc, cum_hoc, false_dilemma). */
  relationship: string;
  /** What changed and why, one line per kind. */
  notes: string[];
  /** straw_man: may not override an established claim without a rationale that matches it. */
  refuseOverrideWithoutRationale: boolean;
  /** begging_question: planners skip the claim. */
  plannerSkip: boolean;
  /** red_herring: retrieval does not expand the graph through it. */
  suppressExpansion: boolean;
  /** false_dilemma: neither option may become a must-follow rule. */
  excludeFromRules: boolean;
  /** ad_hominem: the claim stays; the source gets an attack link. */
  flagSourceAttack: boolean;
  /** equivocation: split the ambiguous node for this claim's source. */
  disambiguate?: { term: string; sense: string };
};

/** Each kind's engine impact, exactly as the seed's table says. */
export function planFallacyImpact(findings: readonly FallacyFinding[], relationship: string, proof = ""): FallacyImpact {
  const impact: FallacyImpact = {
    relationship,
    notes: [],
    refuseOverrideWithoutRationale: false,
    plannerSkip: false,
    suppressExpansion: false,
    excludeFromRules: false,
    flagSourceAttack: false,
  };
  for (const finding of findings) {
    switch (finding.kind) {
      case "post_hoc":
        if (CAUSAL.has(impact.relationship)) {
          impact.notes.push(`post_hoc: ${impact.relationship} downgraded to happened_before`);
          impact.relationship = "happened_before";
        } else impact.notes.push("post_hoc: flagged (no causal link to downgrade)");
        break;
      case "cum_hoc":
        if ((HARD_DEPENDENCY.has(impact.relationship) || CAUSAL.has(impact.relationship)) && !proof.trim()) {
          impact.notes.push(`cum_hoc: hard ${impact.relationship} refused without explicit proof; stored as correlates_with`);
          impact.relationship = "correlates_with";
        } else impact.notes.push(proof.trim() ? "cum_hoc: kept, explicit proof given" : "cum_hoc: flagged");
        break;
      case "false_dilemma":
        impact.excludeFromRules = true;
        if (RULES.has(impact.relationship)) {
          impact.notes.push(`false_dilemma: ${impact.relationship} not promoted to a rule; stored as presents_option`);
          impact.relationship = "presents_option";
        } else impact.notes.push("false_dilemma: kept out of must-follow rules");
        break;
      case "begging_question":
        impact.plannerSkip = true;
        impact.notes.push("begging_question: marked so planners skip it");
        break;
      case "equivocation":
        if (finding.term && finding.senses?.[0]) impact.disambiguate = { term: finding.term, sense: finding.senses[0] };
        impact.notes.push(`equivocation: "${finding.term ?? "a term"}" used in several senses`);
        break;
      case "ad_hominem":
        impact.flagSourceAttack = true;
        impact.notes.push("ad_hominem: claim kept, attack link flagged on the source");
        break;
      case "straw_man":
        impact.refuseOverrideWithoutRationale = true;
        impact.notes.push("straw_man: may not override an established claim without a matching rationale");
        break;
      case "red_herring":
        impact.suppressExpansion = true;
        impact.notes.push("red_herring: graph expansion through it suppressed in retrieval");
        break;
    }
  }
  return impact;
}

/** A rationale matches an established claim when it names what the claim is about (target or caveat words). */
export function rationaleMatches(rationale: string, established: { targetName: string; caveats: string; conditions: string }): boolean {
  const words = new Set(contentWords(rationale).filter((w) => w.length >= 3));
  if (words.size < 2) return false;
  return contentWords(`${established.targetName} ${established.caveats} ${established.conditions}`).some((w) => w.length >= 3 && words.has(w));
}

// ------------------------------------------------------------------ flags read by other layers

type Flagged = { metadata: Record<string, unknown> };

/** Retrieval: whether graph expansion may continue through this link (red_herring says no). */
export const isExpansionSuppressed = (link: Flagged) => link.metadata.suppressExpansion === true;
/** Planners: whether the claim may feed a plan (begging_question says no). */
export const isPlannerUsable = (link: Flagged) => link.metadata.plannerSkip !== true;
/** Rules: whether the claim may become a must-follow rule (false_dilemma says no). */
export const isUsableAsRule = (link: Flagged) => link.metadata.excludeFromRules !== true;

// ------------------------------------------------------------------ LLM judge

/**
 * An LLM (or any other) judge: given a claim, returns findings, or `{ findings, rejected }` where
 * rejected names rule cues it judged false alarms; its output is validated.
 */
export interface FallacyJudge {
  readonly name: string;
  judge(claim: ClaimContext): Promise<unknown>;
}

export type JudgeOutcome = { findings: FallacyFinding[]; rejected: FallacyKind[]; error?: string };

const JudgeOutputSchema = v.union([
  v.array(FallacyFindingSchema),
  v.strictObject({ findings: v.optional(v.array(FallacyFindingSchema), []), rejected: v.optional(v.array(v.picklist(FALLACY_KINDS)), []) }),
]);

/** Asks the judge; unusable output or a failure is reported, never fatal: the rules still apply. */
export async function askFallacyJudge(judge: FallacyJudge, claim: ClaimContext): Promise<JudgeOutcome> {
  let output: unknown;
  try {
    output = await judge.judge(claim);
  } catch (error) {
    return { findings: [], rejected: [], error: `fallacy judge ${judge.name} failed: ${describeError(error)}` };
  }
  const parsed = v.safeParse(JudgeOutputSchema, output);
  if (!parsed.success) return { findings: [], rejected: [], error: `fallacy judge ${judge.name} returned unusable output: ${describeIssues(parsed.issues)}` };
  const { findings, rejected } = Array.isArray(parsed.output) ? { findings: parsed.output, rejected: [] } : parsed.output;
  return { findings: findings.map((f) => ({ ...f, detector: judge.name })), rejected };
}

/** Rule findings the judge did not reject, plus the judge's, one per kind (rules first). */
export function mergeFindings(rules: readonly FallacyFinding[], extra: readonly FallacyFinding[], rejected: readonly FallacyKind[] = []): FallacyFinding[] {
  const merged = rules.filter((f) => !rejected.includes(f.kind));
  for (const finding of extra) if (!merged.some((f) => f.kind === finding.kind)) merged.push(finding);
  return merged;
}
