import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { activateSession, withEngine } from "../../src/cli/context.ts";
import { GllamSession, sameSettings } from "../../src/gllam/session.ts";
import { expectGllamError, makeTempDir } from "../helpers.ts";

const dir = makeTempDir();

describe("GllamSession: one memory and one embedder across commands", () => {
  test("reads share one read-only memory; the first write reopens it writable, then everything shares that", async () => {
    const db = join(dir, "session.db");
    const session = new GllamSession({ db, embedder: "static" });
    await expectGllamError(session.open({ readOnly: true }), "E_NOT_FOUND", /no database at/);
    const writer = await session.open({ create: true });
    writer.addFact({ subject: "Caddy", relationship: "binds_to", object: "Tailscale" });
    expect(await session.open({ readOnly: true })).toBe(writer);
    expect(await session.open({ create: false })).toBe(writer);
    session.discard();

    const reader = await session.open({ readOnly: true });
    expect(reader).not.toBe(writer);
    expect(reader.store.readOnly).toBe(true);
    expect(await session.open({ readOnly: true })).toBe(reader);
    const upgraded = await session.open({ create: false });
    expect(upgraded.store.readOnly).toBe(false);
    // The embedder is chosen once per session, whatever is reopened.
    expect(upgraded.embedder).toBe(reader.embedder);
    expect(() => reader.stats()).toThrow();
    session.close();
  });

  test("withEngine uses the active session's memory for the same settings, and its own (closed after) for others", async () => {
    const db = join(dir, "shared.db");
    const session = new GllamSession({ db, embedder: "static" });
    activateSession(session);
    try {
      const first = await withEngine({ db, embedder: "static" }, { create: true }, async (gllam) => gllam);
      const second = await withEngine({ db, embedder: "static" }, { readOnly: true }, async (gllam) => gllam);
      expect(second).toBe(first);
      expect(session.current).toBe(first);
      const other = await withEngine({ db: join(dir, "other.db"), embedder: "static" }, { create: true }, async (gllam) => gllam);
      expect(other).not.toBe(first);
      expect(() => other.stats()).toThrow();
      expect(first.stats().tables.semantic_nodes).toBe(0);
    } finally {
      activateSession(undefined);
      session.close();
    }
  });

  test.each([
    [{ db: "a.db" }, { db: "a.db", embedder: undefined }, true],
    [{ db: "a.db", busyTimeout: 5 }, { db: "a.db", busyTimeout: "5" }, true],
    [{ db: "a.db" }, { db: "b.db" }, false],
    [{ db: "a.db" }, { db: "a.db", embedder: "static" }, false],
  ])("sameSettings(%j, %j) = %p", (a, b, same) => expect(sameSettings(a, b)).toBe(same));
});
