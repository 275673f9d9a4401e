import type { RecalledLink, RecalledNode, RecallResult } from "./recall.ts";
import type { EpisodeSearchHit } from "./search-episodes.ts";

/** Episode text longer than this is cut in Markdown output (JSON output keeps it whole). */
const EPISODE_CHARS = 600;

/** YYYY-MM-DD in UTC: recall output is read by people and LLMs, and days are the useful grain. */
export function formatDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function formatValidity(link: RecalledLink): string {
  return link.validUntil === null ? `since ${formatDay(link.validFrom)}` : `${formatDay(link.validFrom)} to ${formatDay(link.validUntil)}`;
}

export function formatLink(link: RecalledLink, self: string): string {
  const [from, to] = link.direction === "out" ? [self, link.otherName] : [link.otherName, self];
  const parts = [`${from} **${link.relationship}** ${to}`];
  if (link.caveats && link.caveatInline !== false) parts.push(`caveat: ${link.caveats}`);
  if (link.conditions) parts.push(`when: ${link.conditions}`);
  const facts = [formatValidity(link), `trust ${link.trustWeight}`];
  if (link.source) facts.push(`from ${link.source.docType}/${link.source.displayName || link.source.handle || "?"}`);
  if (link.evidenceCount > 1) facts.push(`asserted ${link.evidenceCount}x`);
  return [`- ${parts.join(" — ")} (${facts.join(", ")}) [link ${link.id}]`, ...formatFactNotes(link)].join("\n");
}

/** What the engine knows about a fact beyond the fact: what it beat, open contradictions, fallacy flags. */
function formatFactNotes(link: RecalledLink): string[] {
  const notes: string[] = [];
  if (link.caveatInline === false && link.caveats) notes.push("caveat compacted into the caveat summary");
  for (const beaten of link.supersedes ?? []) {
    const how = beaten.endReason === "contradicted" ? "contested by" : beaten.endReason === "succeeded" ? "followed" : "prevailed over";
    notes.push(`${how} ${beaten.targetName} (trust ${beaten.trustWeight}) [link ${beaten.linkId}]`);
  }
  for (const c of link.contradictions ?? []) if (c.status === "open") notes.push(`⚠ open contradiction ${c.id}: ${c.name}`);
  if (link.fallacies?.length) notes.push(`fallacies flagged: ${link.fallacies.join(", ")}`);
  return notes.map((note) => `  - ${note}`);
}

function formatFocus({ node, matchedBy, links }: RecalledNode): string[] {
  const lines = [`## ${node.name} (${node.type})`];
  if (node.contextPrompt) lines.push(node.contextPrompt);
  const facts = [`id ${node.id}`, matchedBy === "entity" ? "named in the query" : "nearest to the query"];
  if (node.aliases.length > 0) facts.push(`aliases: ${node.aliases.join(", ")}`);
  if (node.taxonomyPath !== "/") facts.push(`taxonomy: ${node.taxonomyPath}`);
  lines.push(`_${facts.join(" · ")}_`);
  if (node.caveatSummary) lines.push("", `Caveat summary: ${node.caveatSummary}`);
  lines.push("", "### Links");
  lines.push(...(links.length > 0 ? links.map((link) => formatLink(link, node.name)) : ["- (no active links)"]));
  return lines;
}

/** One episode as a cited line: date, session and position, who spoke, what was said, why it ranked. */
export function formatEpisode(hit: EpisodeSearchHit, index: number): string {
  const where = [hit.occurredAt === null ? undefined : formatDay(hit.occurredAt), `${hit.sessionId} #${hit.seq}`].filter(Boolean).join(" · ");
  const who = hit.speaker || hit.role;
  const text = hit.content.length > EPISODE_CHARS ? `${hit.content.slice(0, EPISODE_CHARS)}…` : hit.content;
  const ranks = [hit.bm25Rank && `bm25 #${hit.bm25Rank}`, hit.denseRank && `vector #${hit.denseRank}`].filter(Boolean);
  const why = ranks.length > 0 ? ranks.join(", ") : "next to a match";
  return `${index + 1}. [${where}] ${who ? `**${who}:** ` : ""}${text.replace(/\s*\n\s*/g, " ")} _(${why}; episode ${hit.episodeId})_`;
}

/** The assembled context of a recall as Markdown: focus nodes with their links, episodes, then similar nodes. */
export function formatRecallMarkdown(result: RecallResult): string {
  const lines = [`# Memory for "${result.query}"`, ""];
  for (const name of result.unresolvedEntities) lines.push(`> No node named "${name}" in scope ${result.scope}.`, "");
  for (const warning of result.warnings) lines.push(`> Warning: ${warning}`, "");
  if (result.focus.length === 0 && result.episodes.length === 0) lines.push("_Nothing in memory matches this query._", "");
  for (const focus of result.focus) lines.push(...formatFocus(focus), "");
  if (result.episodes.length > 0) {
    lines.push("## Episodes");
    result.episodes.forEach((hit, i) => lines.push(formatEpisode(hit, i)));
    lines.push("");
  }
  if (result.similar.length > 0) {
    lines.push("## Similar nodes");
    result.similar.forEach((s, i) => lines.push(`${i + 1}. ${s.name} (${s.type}) — distance ${s.distance.toFixed(3)}`));
    lines.push("");
  }
  return lines.join("\n");
}
