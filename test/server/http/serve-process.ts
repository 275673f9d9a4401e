/**
 * `gllam serve` as users start it: the compiled binary in an empty folder with a fresh HOME, on a
 * free port; the test talks to it with real fetch requests and stops it at the end. Call these at
 * a test file's top level or in a test (makeTempDir registers its cleanup with afterAll).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { compiledGllam } from "../../binary-build.ts";
import { makeTempDir } from "../../helpers.ts";

export type Served = { url: string; pid: number; dir: string; env: Record<string, string | undefined>; stderr: () => string; stop: () => Promise<number> };

/** A fresh empty folder and HOME for one server (and the CLI processes beside it). */
export function freshFolder(): { dir: string; env: Record<string, string | undefined> } {
  const dir = makeTempDir("gllam-serve-");
  const home = join(dir, "home");
  mkdirSync(home);
  const work = join(dir, "work");
  mkdirSync(work);
  return { dir: work, env: { ...process.env, HOME: home, GLLAM_TOKEN: undefined } };
}

/** Runs the compiled gllam to its end (the CLI beside the server). */
export async function runCompiled(args: string[], where: { dir: string; env: Record<string, string | undefined> }) {
  const proc = Bun.spawn([await compiledGllam(), ...args], { cwd: where.dir, env: where.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/**
 * Starts `gllam serve --port 0 ...args` and resolves once it says where it listens; rejects with
 * its stderr if it exits first (a refusal to start).
 */
export async function startServe(args: string[], where = freshFolder()): Promise<Served> {
  const proc = Bun.spawn([await compiledGllam(), "serve", "--port", "0", ...args], { cwd: where.dir, env: where.env, stdout: "pipe", stderr: "pipe" });
  let text = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const url = await new Promise<string>((resolve, reject) => {
    const pump = async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        const found = / on (http:\/\/\S+)/.exec(text);
        if (found) resolve(found[1]!);
      }
      reject(new Error(`gllam serve exited (${await proc.exited}): ${text}`));
    };
    void pump();
  });
  const stop = async () => {
    if (proc.exitCode === null) proc.kill("SIGTERM");
    return proc.exited;
  };
  return { url, pid: proc.pid, dir: where.dir, env: where.env, stderr: () => text, stop };
}

/** A JSON request to the server: status, body (parsed) and headers. */
export async function call(served: { url: string }, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text, headers: response.headers };
}
