import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir, REPO_ROOT } from "../helpers.ts";

const dir = makeTempDir();

test("ingest streams: memory stays bounded, not a multiple of the file (a 15 MB JSONL in a subprocess)", async () => {
  const file = join(dir, "big.jsonl");
  const writer = Bun.file(file).writer();
  for (let i = 0; i < 100_000; i++) {
    writer.write(`${JSON.stringify({ session_id: `s-${i % 50}`, speaker: i % 2 ? "Ann" : "Bob", content: `turn ${i}: the ferry to Tangier leaves at noon and we pack snorkel gear ${i * 7}`, timestamp: 1714557600 + i })}\n`);
  }
  await writer.end();
  const proc = Bun.spawnSync(["bun", join(REPO_ROOT, "test/fixtures/ingest-memory.ts"), join(dir, "memory.db"), file], { env: { ...process.env }, stdout: "pipe", stderr: "pipe" });
  expect(proc.stderr.toString()).toBe("");
  const { baselineBytes, peakBytes, inserted } = JSON.parse(proc.stdout.toString());
  expect(inserted).toBe(100_000);
  // Streaming holds one chunk, a 32 MiB page cache and the heap's slack (about 140 MB here, whatever
  // the file's size); parsing the whole file first took about 300 MB more for this one.
  expect((peakBytes - baselineBytes) / 1024 ** 2).toBeLessThan(200);
});
