import { defineCommand } from "citty";
import type { StoreStats } from "../../engine/stats.ts";
import { globalArgs, withEngine } from "../context.ts";

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

export function formatStats(stats: StoreStats): string {
  const width = Math.max(...Object.keys(stats.tables).map((name) => name.length));
  return [
    `database   ${stats.path}`,
    `size       ${formatBytes(stats.fileBytes)} (WAL ${formatBytes(stats.walBytes)})`,
    `schema     version ${stats.schemaVersion} · SQLite ${stats.sqliteVersion} · sqlite-vec ${stats.sqliteVecVersion}`,
    `embeddings ${stats.embeddingModel ?? "none stored yet"}${stats.embeddingDims ? ` (${stats.embeddingDims} dims)` : ""}`,
    `static     ${stats.staticModel ?? "none stored yet"}`,
    "",
    ...Object.entries(stats.tables).map(([name, count]) => `${name.padEnd(width)}  ${String(count).padStart(8)}`),
  ].join("\n");
}

export const statsCommand = defineCommand({
  meta: { name: "stats", description: "Row counts per table, file and WAL size, embedding model and dimensions" },
  args: { json: { type: "boolean", description: "Print the figures as JSON" }, ...globalArgs },
  run: ({ args }) =>
    withEngine(args, { readOnly: true }, async (gllam) => {
      const stats = gllam.stats();
      console.log(args.json ? JSON.stringify(stats, null, 2) : formatStats(stats));
    }),
});
