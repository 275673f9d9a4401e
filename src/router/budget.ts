/**
 * Token estimates and budget packing, pure. Tokens are estimated as ceil(characters / 4) of the
 * whole context: the usual rule of thumb for English with GPT-style tokenizers, cheap and the same
 * everywhere (the context, `bench context`, `ask`). The packer counts characters against budget x 4,
 * so the context it renders estimates at most the budget (rounding each line up on its own, as it
 * once did, left about half a token per line, a turn's worth per context, unused).
 */

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export type Section = "facts" | "contradictions" | "paths" | "timeline" | "procedures" | "chain" | "summaries" | "episodes";

/** Output order of the sections, and their headings. */
export const SECTIONS: readonly { section: Section; title: string }[] = [
  { section: "contradictions", title: "Open contradictions" },
  { section: "facts", title: "Facts" },
  { section: "paths", title: "Paths between the entities" },
  { section: "timeline", title: "Timeline" },
  { section: "procedures", title: "Procedures" },
  { section: "chain", title: "Recipe chain" },
  { section: "summaries", title: "Session summaries" },
  { section: "episodes", title: "Episodes" },
];

export type ContextItem = {
  /** Unique per item (e.g. "episode:12", "link:4"). */
  key: string;
  section: Section;
  /** A sub-heading charged once, with the first item under it (an episode's day). */
  group?: string;
  /** Which group the item belongs to when two share a heading (two sessions on one day); default: the heading. */
  groupId?: string;
  /** The Markdown line(s), citation included. */
  text: string;
  /** What the item is worth for this query (higher is better). */
  value: number;
  /** Position within its section or group in the output (e.g. the turn's seq). */
  order: number;
  /** Text compared for duplicates (default: text); an item whose dedup text is already in is skipped. */
  dedup?: string;
  /** A shorter line with the same citation (a turn cut to its best sentences), used when the item ranks past the first `fullItems` taken. */
  compact?: string;
  episodeId?: number;
};

export const sectionHeader = (section: Section): string => `\n## ${SECTIONS.find((s) => s.section === section)!.title}\n`;
export const groupHeader = (group: string): string => `### ${group}\n`;
const lineChars = (item: ContextItem) => item.text.length + 1;
const groupIdOf = (item: ContextItem) => item.groupId ?? item.group;
const normalise = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();

export type PackOptions = {
  /** How many items keep their whole text; later ones go in as their `compact` line where they have one (default: all whole). */
  fullItems?: number;
};

/**
 * Greedy by marginal value: items in decreasing value; each is taken if its marginal cost (its line,
 * plus its section and group headings when they are not open yet) fits in what is left, and its
 * text is not already in. A smaller item can still fill the room a larger one could not. (Lowering
 * the worth of further items from the same session, to spread the context, lost evidence on the
 * dev data: the turns around a match are worth more than a weaker match elsewhere. Ranking by value
 * per token lost more: short turns are mostly small talk.)
 *
 * Graded compaction: the first `fullItems` taken keep their text, later ones go in compact (a
 * lower-ranked turn is there for the fact it holds, its best sentence, and a budget's tail then
 * holds more distinct turns); the room left at the end restores compacted items to their text,
 * most valuable first, so a budget that holds everything compacts nothing.
 */
export function packContext(items: readonly ContextItem[], budget: number, fixedCost: number, options: PackOptions = {}): { chosen: ContextItem[]; tokens: number } {
  const fullItems = options.fullItems ?? Infinity;
  // In characters: the rendered context is the concatenation of the pieces charged here.
  const room = budget * 4;
  let used = fixedCost * 4;
  const sections = new Set<Section>();
  const groups = new Set<string>();
  const seen = new Set<string>();
  const chosen: ContextItem[] = [];
  const wholes: ContextItem[] = [];
  const ranked = [...items].sort((a, b) => b.value - a.value || a.key.localeCompare(b.key));
  for (const candidate of ranked) {
    const item = chosen.length >= fullItems && candidate.compact !== undefined ? { ...candidate, text: candidate.compact } : candidate;
    const groupKey = item.group === undefined ? undefined : `${item.section}\u0000${groupIdOf(item)}`;
    const cost =
      lineChars(item) +
      (sections.has(item.section) ? 0 : sectionHeader(item.section).length) +
      (groupKey === undefined || groups.has(groupKey) ? 0 : groupHeader(item.group!).length);
    if (used + cost > room) continue;
    // Normalised only once it fits (most candidates do not): a duplicate is skipped either way.
    const text = normalise(candidate.dedup ?? candidate.text);
    if (seen.has(text)) continue;
    used += cost;
    seen.add(text);
    sections.add(item.section);
    if (groupKey !== undefined) groups.add(groupKey);
    chosen.push(item);
    wholes.push(candidate);
  }
  // The room left restores compacted lines, most valuable first (chosen is in value order).
  for (const [i, item] of chosen.entries()) {
    const whole = wholes[i]!;
    if (whole.text === item.text) continue;
    const extra = lineChars(whole) - lineChars(item);
    if (used + extra > room) continue;
    used += extra;
    chosen[i] = whole;
  }
  return { chosen, tokens: Math.ceil(used / 4) };
}

/** The chosen items as Markdown sections in SECTIONS order, groups by their first item, items by order. */
export function renderSections(chosen: readonly ContextItem[]): string {
  let out = "";
  for (const { section } of SECTIONS) {
    const items = chosen.filter((item) => item.section === section);
    if (items.length === 0) continue;
    out += sectionHeader(section);
    const groups = new Map<string | undefined, ContextItem[]>();
    for (const item of [...items].sort((a, b) => a.order - b.order)) groups.set(groupIdOf(item), [...(groups.get(groupIdOf(item)) ?? []), item]);
    const ordered = [...groups.values()].sort((a, b) => a[0]!.order - b[0]!.order);
    for (const list of ordered) {
      if (list[0]!.group !== undefined) out += groupHeader(list[0]!.group);
      for (const item of list) out += `${item.text}\n`;
    }
  }
  return out;
}
