// A server's first recalls after it starts: `gllam serve --workers 0 [ARGS]` (from source, the
// static tier) on a bench file, then the dev questions over HTTP twice, one at a time. With the
// prewarm (the default) the clock starts once the server has logged what it kept; `--no-prewarm`
// to compare. Prints p50 / p95 / mean of each pass, the wait, and the server's peak RSS (VmHWM).
// The server opens the file to write: pass a copy of a bench file.
//   bun bench/scale/serve-first.ts FILE [DATA] [-- ARGS...]
import { join } from "node:path";
import { percentile, round } from "../../src/bench/metrics.ts";
import { readQuestionSets } from "../../src/bench/scale.ts";
import { parseJsonText } from "../../src/episodic/formats/json-text.ts";

const [file, data = "../shared/data/locomo/locomo_dev5.json", ...rest] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/scale/serve-first.ts FILE [DATA] [-- ARGS...]");
const args = rest.filter((arg) => arg !== "--");
const questions = readQuestionSets(parseJsonText(await Bun.file(data).text(), data), 100, 0).asked;
const entry = join(import.meta.dir, "../../src/cli/main.ts");
const server = Bun.spawn(["bun", entry, "serve", "--db", file, "--workers", "0", "--port", "0", ...args], { stdout: "ignore", stderr: "pipe", env: { ...process.env, GLLAM_EMBEDDER: "static" } });

// The server's log, read as it comes; `until` waits for a line (or the time).
const reader = server.stderr.getReader();
const decoder = new TextDecoder();
let log = "";
let pending: ReturnType<typeof reader.read> | undefined;
async function until(pattern: RegExp, ms: number): Promise<RegExpExecArray | null> {
  const deadline = performance.now() + ms;
  while (!pattern.test(log) && performance.now() < deadline) {
    pending ??= reader.read();
    const chunk = await Promise.race([pending, Bun.sleep(50).then(() => undefined)]);
    if (!chunk) continue;
    pending = undefined;
    if (chunk.done) break;
    log += decoder.decode(chunk.value, { stream: true });
  }
  return pattern.exec(log);
}

try {
  const listening = await until(/serving .* on (http\S+)/, 60_000);
  if (!listening) throw new Error(`the server did not start: ${log}`);
  const url = listening[1]!;
  const started = performance.now();
  if (!args.includes("--no-prewarm")) await until(/kept \d+ MB.*\n|could not be kept|warm-up failed/, 120_000);
  const waited = (performance.now() - started) / 1000;
  const pass = async () => {
    const times: number[] = [];
    for (const q of questions) {
      const t = performance.now();
      const response = await fetch(`${url}/v1/recall`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: q.text }) });
      if (!response.ok) throw new Error(`recall answered ${response.status}: ${await response.text()}`);
      await response.json();
      times.push(performance.now() - t);
    }
    return { p50: round(percentile(times, 50), 2), p95: round(percentile(times, 95), 2), mean: round(times.reduce((a, b) => a + b, 0) / times.length, 2) };
  };
  const first = await pass();
  const again = await pass();
  const status = await Bun.file(`/proc/${server.pid}/status`).text();
  const peak = Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024);
  const kept = /gllam: (kept .*)/.exec(log)?.[1] ?? null;
  console.log(JSON.stringify({ args, waited_s: round(waited, 2), first, again, peak_rss_mb: peak, kept, load_average: (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ") }));
} finally {
  server.kill("SIGTERM");
  await server.exited;
}
