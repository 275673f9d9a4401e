import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "../helpers.ts";

test("the stub runs as a subprocess: prints its URL, answers its script, reports stats", async () => {
  const dir = makeTempDir();
  const script = join(dir, "script.json");
  await Bun.write(script, JSON.stringify({ rules: [{ match: "ping", reply: { content: "pong" } }] }));
  const proc = Bun.spawn(["bun", join(import.meta.dir, "stub-server.ts"), "--script", script], { stdout: "pipe" });
  try {
    const reader = proc.stdout.getReader();
    const { value } = await reader.read();
    const url = new TextDecoder().decode(value).trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "ping" }] }) });
    expect(((await answer.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe("pong");
    const stats = (await (await fetch(`${url}/stub/stats`)).json()) as { answered: number; completionTokens: number };
    expect(stats.answered).toBe(1);
    expect(stats.completionTokens).toBe(1);
  } finally {
    proc.kill();
    await proc.exited;
  }
});
