export type ProcessResult = {
  exitCode: number | null;
  /** The limit was reached and the whole process group was killed. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
};

/** How long a process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 300;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Runs a command (argument array, no shell) in a process group of its own, so a time limit kills
 * it and everything it started (Fast Downward runs a translator and a search binary). Any member
 * still alive when the leader exits is killed too, so nothing outlives the call.
 */
export async function runProcessGroup(argv: string[], options: { cwd?: string; timeoutMs: number; env?: Record<string, string | undefined> }): Promise<ProcessResult> {
  const start = performance.now();
  const proc = Bun.spawn(argv, { cwd: options.cwd, env: options.env ?? process.env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  const stdout = new Response(proc.stdout).text();
  const stderr = new Response(proc.stderr).text();
  let timedOut = false;
  let killTimer: Timer | undefined;
  const limitTimer = setTimeout(() => {
    timedOut = true;
    signalGroup(proc.pid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(proc.pid, "SIGKILL"), KILL_GRACE_MS);
  }, options.timeoutMs);
  const exitCode = await proc.exited;
  clearTimeout(limitTimer);
  clearTimeout(killTimer);
  signalGroup(proc.pid, "SIGKILL");
  return { exitCode: timedOut ? null : exitCode, timedOut, stdout: await stdout, stderr: await stderr, ms: performance.now() - start };
}
