/**
 * The scale benchmark's figures as an SVG, drawn by hand (no plotting library): two panels
 * sharing a log-scale size axis, latencies (log ms) on the left and ingest rate (log turns/s) on
 * the right. Pure: result in, SVG text out.
 */
import type { ScaleBenchResult, ScaleRow } from "./scale.ts";

type Series = { name: string; color: string; values: (number | null)[] };
type Panel = { title: string; unit: string; series: Series[] };

// The right panel's last size label is centred on its edge: the width leaves room for it.
const WIDTH = 1000;
const PANEL_W = 400;
const PANEL_H = 300;
const TOP = 60;
// Each panel's legend is a column below its axis label, where no line or gridline runs through it.
const LEGEND_TOP = TOP + PANEL_H + 56;
const LEGEND_ROW = 18;

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const log10 = Math.log10;

function decades(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(log10(min)); e <= Math.ceil(log10(max)); e++) out.push(10 ** e);
  return out;
}

const label = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}K` : String(n));

// A series not measured (the model tier without a sample) is left out, legend and all.
const measuredSeries = (panel: Panel) => panel.series.filter((series) => series.values.some((v) => v !== null && v > 0));

function drawPanel(panel: Panel, sizes: number[], left: number): string {
  const values = panel.series.flatMap((s) => s.values.filter((v): v is number => v !== null && v > 0));
  const yTicks = decades(Math.min(...values), Math.max(...values));
  const xTicks = decades(Math.min(...sizes), Math.max(...sizes));
  const [x0, x1, y0, y1] = [log10(xTicks[0]!), log10(xTicks.at(-1)!), log10(yTicks[0]!), log10(yTicks.at(-1)!)];
  const x = (n: number) => left + ((log10(n) - x0) / (x1 - x0 || 1)) * PANEL_W;
  const y = (v: number) => TOP + PANEL_H - ((log10(v) - y0) / (y1 - y0 || 1)) * PANEL_H;
  const parts = [
    `<text x="${left + PANEL_W / 2}" y="${TOP - 24}" text-anchor="middle" font-weight="bold">${escape(panel.title)}</text>`,
    `<rect x="${left}" y="${TOP}" width="${PANEL_W}" height="${PANEL_H}" fill="none" stroke="#888"/>`,
    ...yTicks.map((t) => `<line x1="${left}" x2="${left + PANEL_W}" y1="${y(t)}" y2="${y(t)}" stroke="#ddd"/><text x="${left - 6}" y="${y(t) + 4}" text-anchor="end">${label(t)}</text>`),
    ...xTicks.map((t) => `<line x1="${x(t)}" x2="${x(t)}" y1="${TOP}" y2="${TOP + PANEL_H}" stroke="#ddd"/><text x="${x(t)}" y="${TOP + PANEL_H + 16}" text-anchor="middle">${label(t)}</text>`),
    `<text x="${left + PANEL_W / 2}" y="${TOP + PANEL_H + 36}" text-anchor="middle">episodes in the scope (log)</text>`,
    `<text transform="translate(${left - 44},${TOP + PANEL_H / 2}) rotate(-90)" text-anchor="middle">${escape(panel.unit)} (log)</text>`,
  ];
  measuredSeries(panel).forEach((series, i) => {
    const points = sizes.flatMap((size, j) => (series.values[j] ? [[x(size), y(series.values[j]!)] as const] : []));
    parts.push(`<polyline fill="none" stroke="${series.color}" stroke-width="2" points="${points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" ")}"/>`);
    parts.push(...points.map(([px, py]) => `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="3.5" fill="${series.color}"/>`));
    parts.push(`<rect x="${left + 10}" y="${LEGEND_TOP + i * LEGEND_ROW - 5}" width="12" height="3" fill="${series.color}"/><text x="${left + 28}" y="${LEGEND_TOP + i * LEGEND_ROW}">${escape(series.name)}</text>`);
  });
  return parts.join("\n");
}

export function writeScalePlot(result: ScaleBenchResult): string {
  const rows = result.sizes;
  const pick = (key: keyof ScaleRow) => rows.map((row) => row[key] as number | null);
  const sizes = rows.map((row) => row.episodes);
  const latency: Panel = {
    title: "Latency per query",
    unit: "ms",
    series: [
      { name: "recall p50 (static query vector)", color: "#1f77b4", values: pick("recall_p50_ms") },
      { name: "recall p95", color: "#aec7e8", values: pick("recall_p95_ms") },
      { name: "recall p50, asked again", color: "#17becf", values: pick("recall_again_p50_ms") },
      { name: "recall p50, new questions", color: "#7f7f7f", values: pick("recall_new_p50_ms") },
      { name: "lexical (BM25) p50", color: "#2ca02c", values: pick("lexical_p50_ms") },
      { name: "recall p50, model tier", color: "#d62728", values: pick("model_recall_p50_ms") },
      { name: "static KNN p50", color: "#9467bd", values: pick("knn_p50_ms") },
    ],
  };
  const ingest: Panel = {
    title: "Ingest rate (static vectors)",
    unit: "turns/s",
    series: [
      { name: "wall", color: "#ff7f0e", values: pick("ingest_turns_per_s") },
      { name: "per CPU-second", color: "#8c564b", values: pick("ingest_turns_per_cpu_s") },
    ],
  };
  const height = LEGEND_TOP + Math.max(...[latency, ingest].map((panel) => measuredSeries(panel).length)) * LEGEND_ROW + 24;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="white"/>`,
    drawPanel(latency, sizes, 70),
    drawPanel(ingest, sizes, 70 + PANEL_W + 90),
    `<text x="${WIDTH / 2}" y="${height - 12}" text-anchor="middle" fill="#555">gllam bench scale: peak RSS ${result.peak_rss_mb} MB (ingest ${Math.max(...result.sizes.map((row) => row.ingest_peak_rss_mb))}, queries ${Math.max(...result.sizes.map((row) => row.query_peak_rss_mb))})</text>`,
    "</svg>",
    "",
  ].join("\n");
}
