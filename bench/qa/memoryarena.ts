/**
 * The QA pipeline's MemoryArena loader (src/bench/memoryarena.ts): validates DATA (a .jsonl file, or
 * a folder of config folders or files) and writes OUT/questions.jsonl and OUT/steps/<scope>/<i>.jsonl,
 * the turns to ingest before subtask i. A bad line stops it with its file and line number.
 *   bun bench/qa/memoryarena.ts DATA OUT
 */
import { GllamError } from "../../src/engine/errors.ts";
import { writeMemoryArenaPlan } from "../../src/bench/memoryarena.ts";

const [data, out] = process.argv.slice(2);
if (!data || !out) {
  console.error("usage: bun bench/qa/memoryarena.ts DATA OUT");
  process.exit(2);
}
try {
  await writeMemoryArenaPlan(data, out);
} catch (error) {
  if (!(error instanceof GllamError)) throw error;
  console.error(`memoryarena: ${error.message}`);
  process.exit(1);
}
