/**
 * A memory with a bit of everything an export must carry: the seed graph, a contradiction and its
 * resolution links, a trust-weighted supersession, a temporal succession, a fallacy-flagged claim,
 * caveat compaction, taxonomy paths and categories, ingested sessions with mentions, a summary,
 * an extraction checkpoint, a versioned procedure with a PDDL action, a second scope, and a
 * forgotten episode and link (so ids have gaps and the episode sequence runs past the last id).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Gllam } from "../../src/gllam/gllam.ts";

export const CHAT = [
  { session_id: "deploy", speaker: "Ann", content: "Caddy must use the Tailscale FQDN on homelab-01.", timestamp: "2025-01-10T09:00:00Z", metadata: { channel: "ops" } },
  { session_id: "deploy", speaker: "Bob", content: "Grafana needs root_url set behind Caddy.", timestamp: "2025-01-10T09:01:00Z" },
  { session_id: "deploy", speaker: "Ann", content: "Forget this line: it holds a secret.", timestamp: "2025-01-10T09:02:00Z" },
  { session_id: "backup", speaker: "Bob", content: "PostgreSQL backups run nightly to the NAS.", timestamp: "2025-02-01T22:00:00Z" },
];

export async function buildRichMemory(gllam: Gllam, dir: string): Promise<void> {
  await gllam.seedSampleMemory();
  const chat = join(dir, `chat-${Date.now()}.jsonl`);
  writeFileSync(chat, CHAT.map((turn) => JSON.stringify(turn)).join("\n"));
  await gllam.ingestFiles([chat]);

  // Equal trust on an exclusive relationship: a contradiction node, resolved for one claim.
  gllam.addFact({ subject: "Main DB", relationship: "version_is", object: "PostgreSQL 15", trustWeight: 600, allowNew: true });
  const contested = gllam.addFact({ subject: "Main DB", relationship: "version_is", object: "PostgreSQL 16", trustWeight: 600, allowNew: true });
  gllam.resolveContradiction(contested.contradictionId!, contested.linkId);
  // Higher trust supersedes; a later valid_from is a succession.
  gllam.addFact({ subject: "Caddy", relationship: "located_in", object: "Garage", source: { handle: "intern", docType: "slack" } });
  gllam.addFact({ subject: "Caddy", relationship: "located_in", object: "Server room", source: { handle: "ci", docType: "merged_pr", role: "system_cicd" } });
  gllam.addFact({ subject: "Caddy", relationship: "status_is", object: "Healthy", validFrom: Date.UTC(2025, 0, 1) });
  gllam.addFact({ subject: "Caddy", relationship: "status_is", object: "Degraded", validFrom: Date.UTC(2025, 2, 1), allowNew: true });
  // A post hoc claim: stored with its fallacy node, downgraded.
  gllam.addFact({ subject: "Upgrade", relationship: "causes", object: "Outage", claim: "We upgraded Caddy, then the server rebooted, so the upgrade caused the outage" });
  for (let i = 0; i < 6; i++) gllam.addFact({ subject: "Caddy", relationship: "depends_on", object: `Module ${i}`, caveats: `Pinned to release ${i}`, allowNew: true });
  gllam.compactNodeCaveats("caddy", 2);

  gllam.upsertNode({ id: "services", name: "Services", isCategory: true, taxonomyPath: "/Infrastructure/Services" });
  gllam.upsertNode({ id: "gitea", name: "Gitea", taxonomyPath: "/Infrastructure/Services/Gitea" });
  gllam.addFact({ subject: "Gitea", relationship: "is_a", object: "Services" });

  gllam.saveEpisodicSummary({ sessionId: "backup", summary: "Nightly database backups", startTime: "2025-02-01T22:00:00Z", endTime: "2025-02-01T22:01:00Z", metadata: { by: "test" } });
  gllam.db().query("INSERT INTO extracted_sessions (scope, session_id, extractor, node_count, link_count, extracted_at) VALUES ('default', 'deploy', 'test-llm', 3, 2, 1735000000000)").run();
  gllam.upsertProceduralKnowledge({ taskType: "deploy caddy", recipe: "1. install", taxonomyPath: "/Infrastructure/Services" });
  gllam.upsertProceduralKnowledge({
    taskType: "deploy caddy",
    recipe: "1. install 2. bind to the tailnet",
    pddlAction: { name: "deploy-caddy", preconditions: ["(installed caddy)"], effects: ["(deployed caddy)"] },
  });

  gllam.addFact({ subject: "Laptop", relationship: "owned_by", object: "Ann", scope: "work" });
  gllam.remember([{ scope: "work", sessionId: "standup", speaker: "Ann", content: "The laptop goes back to IT on Friday." }]);

  const secret = gllam.db().query<{ id: number }, []>("SELECT id FROM episodes WHERE content LIKE 'Forget this line%'").get()!;
  gllam.forget({ episode: secret.id });
  // The newest episode forgotten: the sequence now runs past the last id.
  gllam.forget({ episode: gllam.remember([{ sessionId: "deploy", speaker: "Bob", content: "A typo I take back." }]).ids[0]! });
  const garage = gllam.factHistory("Caddy", "located_in").versions.find((version) => version.targetName === "Garage")!;
  gllam.forget({ link: garage.link.id });
}
