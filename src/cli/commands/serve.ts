import { defineCommand } from "citty";
import { openGllam } from "../../gllam/open.ts";
import { describeError, GllamError, type PrewarmReport } from "../../gllam/types.ts";
import { backgroundWorkersArg, globalArgs, integerFlag, settingsOf } from "../context.ts";

const DEFAULT_PORT = 7411;
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

const UNITS: Record<string, number> = { "": 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2 };

/** `--max-body 10MB`: bytes, or a number with k/KB/KiB or m/MB/MiB (powers of 1024). */
export function parseByteSize(text: string): number {
  const found = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = found && UNITS[found[2]!.toLowerCase()];
  if (!found || !unit || Number(found[1]) * unit < 1) throw new GllamError("E_BAD_INPUT", `--max-body must be a size like 10MB, 512k or 1048576, got "${text}"`);
  return Math.floor(Number(found[1]) * unit);
}

/** Resolves on SIGINT or SIGTERM (the server then stops and memory closes). */
const untilStopped = () =>
  new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });

/** The warm-up's line in the server's log (none when no scope is large enough to have cells, or a stop cut it short). */
function reportPrewarm({ cells, recalls, seconds, stopped }: PrewarmReport): void {
  if (stopped) return;
  if (!cells) process.stderr.write("gllam: the vector cells could not be kept ahead (recalls keep them as they read them)\n");
  if (!cells?.scopes.length && recalls === 0) return;
  const scopes = cells && `${cells.scopes.length} scope${cells.scopes.length === 1 ? "" : "s"}`;
  const kept = cells?.scopes.length ? `kept ${(cells.bytes / 2 ** 20).toFixed(0)} MB of vector cells (${cells.chunks} chunks, ${scopes}) and ` : "";
  const full = cells?.full ? "; the cache is full ($GLLAM_KNN_CACHE_MB)" : "";
  process.stderr.write(`gllam: ${kept}asked ${recalls} warm-up recalls in ${seconds.toFixed(1)} s${full}\n`);
}

export const serveCommand = defineCommand({
  meta: { name: "serve", description: "Serve memory over HTTP (JSON API, GET /openapi.json): 127.0.0.1 by default; another host needs --token" },
  args: {
    host: { type: "string", description: "Address to listen on (default 127.0.0.1; any other needs --token)", valueHint: "host" },
    port: { type: "string", description: `Port (default ${DEFAULT_PORT}; 0 picks a free one)`, valueHint: "port" },
    token: { type: "string", description: "Bearer token every route but /health requires (default: $GLLAM_TOKEN)", valueHint: "token" },
    "max-body": { type: "string", description: "Largest request body (default 10MB)", valueHint: "size" },
    workers: backgroundWorkersArg,
    prewarm: {
      type: "boolean",
      default: true,
      description: "Keep the large scopes' vector cells in memory from the start (up to $GLLAM_KNN_CACHE_MB), while no request waits",
      negativeDescription: "Keep them only as recalls read them",
    },
    ...globalArgs,
  },
  run: async ({ args }) => {
    const host = args.host ?? "127.0.0.1";
    const port = integerFlag(args.port, DEFAULT_PORT, "--port", 0, 65535);
    const workers = integerFlag(args.workers, 1, "--workers", 0, 16);
    const maxBodyBytes = args["max-body"] === undefined ? DEFAULT_MAX_BODY_BYTES : parseByteSize(args["max-body"]);
    const token = args.token ?? process.env.GLLAM_TOKEN;
    // Loaded here, not with the CLI, so other commands do not pay for the server's modules at start.
    const [{ checkServeSecurity, startHttpServer }, { serveBrowser }] = await Promise.all([import("../../server/http/serve.ts"), import("../../server/browser/assets.ts")]);
    checkServeSecurity(host, token);
    const gllam = await openGllam(settingsOf(args), { create: true, staticTable: true });
    try {
      // The model loads once, now, so the first recall does not wait for it.
      await gllam.tiers.model?.embed(["gllam"]);
      if (workers > 0) gllam.startEmbeddingWorkerPool(workers);
      gllam.startWALCheckpointManager(1000);
      // Listening for the stop before saying where it serves: a client may stop it at once.
      const stopped = untilStopped();
      let warmingUp = args.prewarm;
      const server = startHttpServer(gllam, { host, port, token, maxBodyBytes, fallback: serveBrowser, warmingUp: () => warmingUp });
      process.stderr.write(`gllam: serving ${gllam.path} on ${server.url.href.replace(/\/$/, "")}${token ? " (bearer token required)" : ""}\n`);
      if (args.prewarm) {
        void gllam
          .prewarm()
          .then(reportPrewarm, (error) => process.stderr.write(`gllam: the warm-up failed: ${describeError(error)}\n`))
          .finally(() => (warmingUp = false));
      }
      await stopped;
      await server.stop(true);
    } finally {
      gllam.close();
    }
  },
});
