// Hand-drawn SVG pictures (no library: a few dozen bars and nodes need only arithmetic, and the
// page stays one small offline bundle): link history timelines, the episode density strip, and a
// radial neighbourhood graph.
import { DAY, day, h } from "./lib.js";

const scale = (min, max, width) => (t) => ((t - min) / Math.max(1, max - min)) * width;

/** Who said it, inside a long bar, else beside it where there is room. */
function barLabel(text, start, end, y, right) {
  if (end - start > 170) return h("text", { x: start + 5, y, class: "bar-label inside" }, text);
  return end + 170 < right ? h("text", { x: end + 5, y, class: "bar-label" }, text) : h("text", { x: start - 5, y, class: "bar-label", "text-anchor": "end" }, text);
}

/** The versions of one (subject, relationship) as bars over world time; `cursor` marks asOf. */
export function historyTimeline(versions, { min, max, cursor }) {
  const left = 150;
  const width = 760;
  const row = 26;
  const height = versions.length * row + 30;
  const x = scale(min, max, width);
  const svg = h("svg", { viewBox: `0 0 ${left + width + 10} ${height}`, role: "img", "aria-label": `timeline of ${versions.length} versions` });
  versions.forEach((version, i) => {
    const { link } = version;
    const y = i * row + 4;
    const end = link.validUntil ?? max;
    const who = version.source ? `${version.source.docType}/${version.source.displayName || version.source.handle}` : "unattributed";
    const bar = h(
      "rect",
      { class: `bar ${version.status}`, x: left + x(link.validFrom), y, width: Math.max(3, x(end) - x(link.validFrom)), height: row - 8, rx: 3 },
      h("title", {}, `${version.targetName}: ${day(link.validFrom)} → ${link.validUntil === null ? "now" : day(link.validUntil)}, ${who}, trust ${link.trustWeight}${version.ended ? ` — ${version.ended}` : ""}`),
    );
    svg.append(
      h("text", { x: left - 6, y: y + row / 2, "text-anchor": "end" }, version.targetName.length > 22 ? `${version.targetName.slice(0, 21)}…` : version.targetName),
      bar,
      barLabel(`${who} · ${link.trustWeight}`, left + x(link.validFrom), left + x(end), y + row / 2 + 1, left + width),
    );
  });
  const axisY = versions.length * row + 8;
  svg.append(h("line", { class: "axis", x1: left, x2: left + width, y1: axisY, y2: axisY }));
  svg.append(h("text", { x: left, y: axisY + 16 }, day(min)), h("text", { x: left + width, y: axisY + 16, "text-anchor": "end" }, day(max)));
  if (cursor !== undefined && cursor >= min && cursor <= max) {
    svg.append(h("line", { x1: left + x(cursor), x2: left + x(cursor), y1: 0, y2: axisY, stroke: "#b3261e", "stroke-dasharray": "3 3" }, h("title", {}, `world time ${day(cursor)}`)));
  }
  return svg;
}

/** Episodes per day as a strip of bars; clicking a bar (or pressing Enter on it) picks that day. */
export function densityStrip(days, { min, max, selected, onPick }) {
  const width = 1000;
  const height = 90;
  const span = Math.max(DAY, max - min + DAY);
  const x = scale(min, min + span, width);
  const barWidth = Math.max(2, (DAY / span) * width - 1);
  const peak = Math.max(1, ...days.map((d) => d.episodes));
  const svg = h("svg", { viewBox: `0 0 ${width} ${height + 20}`, role: "group", "aria-label": `episodes per day, ${day(min)} to ${day(max)}` });
  for (const d of days) {
    const barHeight = Math.max(2, (Math.sqrt(d.episodes) / Math.sqrt(peak)) * height);
    const inside = selected && d.day >= selected.start && d.day < selected.end;
    const rect = h(
      "rect",
      { class: `density${inside ? " selected" : ""}`, x: x(d.day), y: height - barHeight, width: barWidth, height: barHeight, tabindex: days.length <= 400 ? 0 : undefined, role: "button", "aria-label": `${day(d.day)}: ${d.episodes} episodes` },
      h("title", {}, `${day(d.day)}: ${d.episodes} episodes`),
    );
    rect.addEventListener("click", () => onPick(d.day));
    rect.addEventListener("keydown", (event) => (event.key === "Enter" || event.key === " ") && (event.preventDefault(), onPick(d.day)));
    svg.append(rect);
  }
  svg.append(h("line", { class: "axis", x1: 0, x2: width, y1: height + 1, y2: height + 1 }), h("text", { x: 0, y: height + 16 }, day(min)), h("text", { x: width, y: height + 16, "text-anchor": "end" }, day(max)));
  return svg;
}

/**
 * A neighbourhood drawn radially: the centre, hop-1 nodes on an inner ring, hop-2 nodes on an outer
 * ring near their hop-1 neighbour. Links are labelled; ended and retired links dashed; links in an
 * open contradiction red; links on `path` (ids) highlighted. Nodes are links to their pages.
 */
export function neighbourhoodGraph(data, { nodeHref, pathLinks = new Set() }) {
  const size = 760;
  const c = size / 2;
  const pos = new Map();
  const ring1 = data.nodes.filter((n) => n.hop === 1);
  const ring2 = data.nodes.filter((n) => n.hop === 2);
  pos.set(data.center, { x: c, y: c });
  ring1.forEach((n, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, ring1.length) - Math.PI / 2;
    pos.set(n.id, { x: c + Math.cos(a) * 170, y: c + Math.sin(a) * 170, a });
  });
  // Hop-2 nodes sit on the outer ring beside the hop-1 node they hang from (the strongest link's),
  // siblings fanned out around it, so their links stay short and away from the centre.
  const anchorOf = (id) => {
    for (const l of data.links) {
      const other = l.sourceId === id ? l.targetId : l.targetId === id ? l.sourceId : undefined;
      if (other && pos.get(other)?.a !== undefined) return other;
    }
    return data.center;
  };
  const children = new Map();
  for (const n of ring2) {
    const anchor = anchorOf(n.id);
    children.set(anchor, [...(children.get(anchor) ?? []), n]);
  }
  const spread = Math.min(0.4, (2 * Math.PI) / Math.max(1, ring2.length));
  for (const [anchor, kids] of children) {
    const a = pos.get(anchor)?.a ?? 0;
    kids.forEach((n, j) => {
      const angle = a + (j - (kids.length - 1) / 2) * spread;
      pos.set(n.id, { x: c + Math.cos(angle) * 320, y: c + Math.sin(angle) * 320 });
    });
  }
  // The picture is as large as the rings drawn (one ring: no empty band around it).
  const xs = [...pos.values()].map((p) => p.x);
  const ys = [...pos.values()].map((p) => p.y);
  const [x0, y0] = [Math.min(...xs) - 90, Math.min(...ys) - 40];
  const [w, ht] = [Math.max(...xs) + 90 - x0, Math.max(...ys) + 50 - y0];
  const svg = h("svg", { viewBox: `${x0} ${y0} ${w} ${ht}`, width: w, height: ht, role: "group", "aria-label": `graph of ${data.nodes.length} nodes and ${data.links.length} links` });
  svg.append(h("defs", {}, h("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 22, refY: 5, markerWidth: 10, markerHeight: 10, markerUnits: "userSpaceOnUse", orient: "auto" }, h("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#7a8591" }))));
  // Several links between the same two nodes fan out so their labels stay apart.
  const pairCount = new Map();
  for (const l of data.links) {
    const a = pos.get(l.sourceId);
    const b = pos.get(l.targetId);
    if (!a || !b) continue;
    const key = [l.sourceId, l.targetId].sort().join("\u0000");
    const k = pairCount.get(key) ?? 0;
    pairCount.set(key, k + 1);
    const bend = k === 0 ? 0 : (k % 2 ? 1 : -1) * Math.ceil(k / 2) * 28;
    const mx = (a.x + b.x) / 2;
    const my = (a.y + b.y) / 2;
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    let cx = mx - ((b.y - a.y) / len) * bend;
    let cy = my + ((b.x - a.x) / len) * bend;
    // A link between two outer nodes bows away from the centre, so it does not cross the centre's links.
    if (l.sourceId !== data.center && l.targetId !== data.center) {
      const away = Math.hypot(mx - c, my - c);
      const [ux, uy] = away > 1 ? [(mx - c) / away, (my - c) / away] : [-(b.y - a.y) / len, (b.x - a.x) / len];
      cx += ux * 90;
      cy += uy * 90;
    }
    const classes = ["edge", l.status, l.contradictions.length > 0 ? "contested" : "", pathLinks.has(l.id) ? "on-path" : ""].filter(Boolean).join(" ");
    const state = [l.status !== "active" ? l.status : "", l.contradictions.length > 0 ? "contested" : ""].filter(Boolean).join(", ");
    svg.append(
      h(
        "g",
        { class: "link", "data-link": l.id, "data-status": l.status },
        h("path", { class: classes, d: `M ${a.x} ${a.y} Q ${cx} ${cy} ${b.x} ${b.y}`, "marker-end": "url(#arrow)" }, h("title", {}, `${l.relationship} (link ${l.id}${state ? `, ${state}` : ""}, trust ${l.trustWeight})`)),
        h("text", { class: "edge-label", x: (mx + cx) / 2, y: (my + cy) / 2 - 3, "text-anchor": "middle" }, `${l.relationship}${l.contradictions.length > 0 ? " ⚠" : ""}`),
      ),
    );
  }
  for (const n of data.nodes) {
    const p = pos.get(n.id);
    svg.append(
      h(
        "g",
        { class: `node${n.id === data.center ? " center" : ""}`, "data-node": n.id },
        h("svg:a", { href: nodeHref(n.id), "aria-label": `${n.name} (${n.type})` }, h("circle", { cx: p.x, cy: p.y, r: n.id === data.center ? 16 : 11 }), h("text", { x: p.x, y: p.y + 28, "text-anchor": "middle" }, n.name)),
      ),
    );
  }
  return svg;
}
