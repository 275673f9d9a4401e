import { describe, expect, test } from "bun:test";
import type { Gllam } from "../../src/gllam/gllam.ts";
import { expectGllamError, makeTempDir, openTempGllam } from "../helpers.ts";

const dir = makeTempDir();
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

async function graph(): Promise<Gllam> {
  const gllam = await openTempGllam(dir);
  for (const [id, name] of [["caddy", "Caddy"], ["tailscale", "Tailscale"], ["host", "homelab-01"]]) gllam.upsertNode({ id: id!, name: name! });
  return gllam;
}

describe("addEdge", () => {
  test("stores a caveat-qualified link with its valid time and system time", async () => {
    const gllam = await graph();
    const before = Date.now();
    const result = gllam.addEdge({
      sourceId: "caddy",
      targetId: "tailscale",
      relationship: "Binds_To",
      caveats: "Must use Tailscale FQDN",
      validFrom: "2025-01-10T00:00:00Z",
    });
    expect(result.action).toBe("inserted");
    const [link] = gllam.activeLinks("caddy");
    expect(link).toMatchObject({
      id: result.linkId,
      relationship: "binds_to",
      caveats: "Must use Tailscale FQDN",
      validFrom: day("2025-01-10"),
      validUntil: null,
      expiredAt: null,
      trustWeight: 500,
      evidenceCount: 1,
      direction: "out",
    });
    expect(link!.recordedAt).toBeGreaterThanOrEqual(before);
    gllam.close();
  });

  test("an identical re-assertion adds no row; only new provenance adds evidence", async () => {
    const gllam = await graph();
    const addSource = (id: string) =>
      gllam.db().run("INSERT INTO sources (id, doc_type, handle, trust_weight, created_at, updated_at) VALUES (?, 'slack', ?, 600, 0, 0)", [id, id]);
    addSource("alice");
    addSource("bob");
    const claim = { sourceId: "caddy", targetId: "host", relationship: "runs_on", caveats: "systemd", originSourceId: "alice" };
    const first = gllam.addEdge(claim);
    expect(gllam.addEdge(claim)).toMatchObject({ action: "duplicate", linkId: first.linkId, reason: expect.stringContaining("already recorded") });
    expect(gllam.addEdge({ ...claim, originSourceId: "bob" })).toMatchObject({ action: "duplicate", linkId: first.linkId, reason: expect.stringContaining("new provenance") });
    expect(gllam.addEdge({ ...claim, originSourceId: "bob" }).reason).toContain("already recorded");
    const links = gllam.activeLinks("caddy");
    expect(links).toHaveLength(1);
    expect(links[0]!.evidenceCount).toBe(2);
    expect(links[0]!.metadata.provenance).toEqual([{ originSourceId: "bob", episodeId: null, recordedAt: expect.any(Number) }]);
    // A different caveat is a different claim.
    expect(gllam.addEdge({ ...claim, caveats: "docker" }).action).toBe("inserted");
    gllam.close();
  });

  test("activeLinks reads at a world time, both directions", async () => {
    const gllam = await graph();
    gllam.addEdge({ sourceId: "caddy", targetId: "host", relationship: "runs_on", validFrom: day("2024-01-01"), validUntil: day("2024-06-01") });
    gllam.addEdge({ sourceId: "tailscale", targetId: "caddy", relationship: "routes_to", validFrom: day("2025-01-01") });
    const at = (iso: string) => gllam.activeLinks("caddy", { asOf: day(iso) }).map((l) => `${l.direction}:${l.relationship}`);
    expect(at("2023-12-31")).toEqual([]);
    expect(at("2024-03-01")).toEqual(["out:runs_on"]);
    expect(at("2024-06-01")).toEqual([]);
    expect(at("2025-02-01")).toEqual(["in:routes_to"]);
    gllam.close();
  });

  test.each([
    [{ sourceId: "caddy", targetId: "nobody", relationship: "binds_to" }, "E_NOT_FOUND", /no node nobody/],
    [{ sourceId: "caddy", targetId: "host", relationship: "binds to" }, "E_BAD_INPUT", /relationship: must be snake_case/],
    [{ sourceId: "caddy", targetId: "host", relationship: "r", validFrom: 10, validUntil: 5 }, "E_BAD_INPUT", /validUntil must not be before validFrom/],
    [{ sourceId: "caddy", targetId: "host", relationship: "r", trustWeight: 5000 }, "E_BAD_INPUT", /trustWeight/],
    [{ sourceId: "caddy", targetId: "host", relationship: "r", validFrom: "not a date" }, "E_BAD_INPUT", /validFrom: must be a valid date/],
    [{ sourceId: "caddy", targetId: "host", relationship: "r", originSourceId: "jira-1" }, "E_NOT_FOUND", /origin source jira-1/],
    [{ sourceId: "caddy", targetId: "host", relationship: "r", episodeId: 42 }, "E_NOT_FOUND", /provenance episode 42/],
  ] as const)("refuses %j", async (input, code, message) => {
    const gllam = await graph();
    await expectGllamError(() => gllam.addEdge(input), code, message);
    expect(gllam.dbRO().query("SELECT count(*) AS n FROM semantic_links").get()).toEqual({ n: 0 });
    gllam.close();
  });
});
