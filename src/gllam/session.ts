/**
 * Memory kept open across commands (the REPL): the embedding tiers are chosen once and one Gllam
 * serves every command opened with the session's settings, so the model loads once and nothing is
 * reopened per command. The memory is opened as the first command needs it (read-only for reads,
 * so starting a session creates nothing) and reopened only to go from reading to writing.
 */
import { isMemoryPath } from "../engine/connections.ts";
import { isLocalModelLoaded } from "../embed/local-model.ts";
import type { Embedder } from "../embed/embedder.ts";
import { readEnv } from "../config/env.ts";
import type { Gllam } from "./gllam.ts";
import { chooseTiers, databasePath, GllamSettingsSchema, openGllamWith, stderrNotices, type ChosenTiers, type GllamSettings, type Notices, type OpenMode } from "./open.ts";

const SETTING_KEYS = Object.keys(GllamSettingsSchema.entries) as (keyof GllamSettings)[];

/** Whether two settings open the same memory the same way (a setting left out is its default either way). */
export const sameSettings = (a: GllamSettings, b: GllamSettings): boolean => SETTING_KEYS.every((key) => String(a[key] ?? "") === String(b[key] ?? ""));

/** The bundled model, announced as a slow step the first time this process embeds with it. */
function announcingModelLoad(embedder: Embedder, notices: Notices): Embedder {
  const step = notices.step;
  if (embedder.spec?.kind !== "local" || !step) return embedder;
  return {
    modelVersion: embedder.modelVersion,
    dims: embedder.dims,
    spec: embedder.spec,
    embed: (texts) => (isLocalModelLoaded() ? embedder.embed(texts) : step("loading the embedding model (once per session)", () => embedder.embed(texts))),
  };
}

export class GllamSession {
  readonly settings: GllamSettings;
  readonly notices: Notices;
  #tiers: Promise<ChosenTiers> | undefined;
  #open: { gllam: Gllam; writable: boolean } | undefined;
  #warnedDrift = false;

  constructor(settings: GllamSettings, notices: Notices = stderrNotices) {
    this.settings = settings;
    this.notices = notices;
  }

  /** The database file the session opens. */
  get path(): string {
    return databasePath(this.settings);
  }

  /** The memory if one is open (the REPL's intro reads it without opening anything). */
  get current(): Gllam | undefined {
    return this.#open?.gllam;
  }

  /** The embedding tiers, chosen on first need and kept (the bundled model loads once per process). */
  tiers(): Promise<ChosenTiers> {
    this.#tiers ??= chooseTiers(this.settings, readEnv(), this.notices)
      .then((tiers) => ({ ...tiers, embedder: announcingModelLoad(tiers.embedder, this.notices) }))
      .catch((error) => {
        this.#tiers = undefined;
        throw error;
      });
    return this.#tiers;
  }

  /** The session's memory, opened as `mode` needs: an open one is reused, a read-only one reopened to write. */
  async open(mode: OpenMode): Promise<Gllam> {
    // A database in memory has only its writer: it is opened (created) once and kept.
    const writable = !("readOnly" in mode) || isMemoryPath(this.path);
    if (this.#open && (this.#open.writable || !writable)) return this.#open.gllam;
    const tiers = await this.tiers();
    const storeMode: OpenMode = writable ? { create: isMemoryPath(this.path) || ("create" in mode && mode.create) } : { readOnly: true };
    const gllam = await openGllamWith(tiers, this.settings, { ...storeMode, staticTable: mode.staticTable, quietDrift: mode.quietDrift || this.#warnedDrift }, this.notices);
    this.#warnedDrift = true;
    this.discard();
    this.#open = { gllam, writable };
    return gllam;
  }

  /**
   * Closes the open memory (the tiers stay): after a command was abandoned midway, its next use of
   * the closed memory fails, so it stops at its last committed transaction; the next command reopens.
   */
  discard(): void {
    this.#open?.gllam.close();
    this.#open = undefined;
  }

  close(): void {
    this.discard();
  }
}
