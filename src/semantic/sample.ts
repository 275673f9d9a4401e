/**
 * The sample memory `gllam seed` writes: the seed specification's walk-through (Caddy bound to
 * Tailscale with its FQDN caveat) inside a small home-lab graph, so recall has something to find.
 */
import type { Embedder } from "../embed/embedder.ts";
import type { Store } from "../engine/store.ts";
import type { LinkInput, NodeInput } from "../memory/types.ts";
import type { AgenticMemoryConfig } from "../config/prompts.ts";
import { addEdge } from "./add-edge.ts";
import { storeNodeEmbeddings } from "./node-vectors.ts";
import { upsertNode } from "./nodes.ts";

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

export const SAMPLE_NODES: NodeInput[] = [
  { id: "caddy", name: "Caddy", type: "service", contextPrompt: "Web server and reverse proxy with automatic HTTPS.", aliases: ["caddy server"] },
  { id: "tailscale", name: "Tailscale", type: "network", contextPrompt: "WireGuard mesh VPN giving each machine a private address and a MagicDNS name." },
  { id: "postgres", name: "PostgreSQL", type: "database", contextPrompt: "Relational database for application data.", aliases: ["postgres", "pg"] },
  { id: "redis", name: "Redis", type: "cache", contextPrompt: "In-memory key-value store used as a cache and job queue." },
  { id: "prometheus", name: "Prometheus", type: "monitoring", contextPrompt: "Time-series metrics collection and alerting." },
  { id: "grafana", name: "Grafana", type: "dashboard", contextPrompt: "Dashboards for metrics and logs." },
  { id: "gitea", name: "Gitea", type: "service", contextPrompt: "Self-hosted Git forge for the team's repositories." },
  { id: "homelab-01", name: "homelab-01", type: "host", contextPrompt: "Debian machine in the home lab that runs the services." },
  { id: "letsencrypt", name: "Let's Encrypt", type: "certificate authority", contextPrompt: "Free automated TLS certificate authority." },
  { id: "docker", name: "Docker", type: "runtime", contextPrompt: "Container runtime." },
];

export const SAMPLE_LINKS: LinkInput[] = [
  {
    sourceId: "caddy",
    targetId: "tailscale",
    relationship: "binds_to",
    caveats: "Must use the Tailscale FQDN (homelab-01.tailnet.ts.net), not the LAN IP",
    conditions: "for sites served only on the tailnet",
    validFrom: day("2025-01-10"),
  },
  { sourceId: "caddy", targetId: "homelab-01", relationship: "runs_on", caveats: "Runs as a systemd service, not in Docker", validFrom: day("2025-01-10") },
  {
    sourceId: "caddy",
    targetId: "letsencrypt",
    relationship: "obtains_certificates_from",
    caveats: "Public domains only; tailnet names get certificates from Tailscale",
    validFrom: day("2025-01-10"),
  },
  { sourceId: "caddy", targetId: "grafana", relationship: "reverse_proxies_to", caveats: "Grafana must set root_url to the proxied path", validFrom: day("2025-02-03") },
  { sourceId: "caddy", targetId: "gitea", relationship: "reverse_proxies_to", validFrom: day("2025-03-15") },
  { sourceId: "prometheus", targetId: "caddy", relationship: "scrapes", caveats: "Caddy's metrics are on the admin API port 2019", validFrom: day("2025-02-03") },
  { sourceId: "grafana", targetId: "prometheus", relationship: "reads_from", validFrom: day("2025-02-03") },
  { sourceId: "grafana", targetId: "postgres", relationship: "stores_state_in", caveats: "Needs PostgreSQL 14 or newer", validFrom: day("2025-02-03") },
  {
    sourceId: "postgres",
    targetId: "homelab-01",
    relationship: "runs_on",
    caveats: "Data directory on the ZFS pool; stop the service before snapshots",
    validFrom: day("2024-11-20"),
  },
  { sourceId: "redis", targetId: "docker", relationship: "runs_in", caveats: "No persistence: treat it as a disposable cache", validFrom: day("2024-11-20") },
  { sourceId: "docker", targetId: "homelab-01", relationship: "runs_on", validFrom: day("2024-11-20") },
  { sourceId: "gitea", targetId: "postgres", relationship: "stores_state_in", validFrom: day("2025-03-15") },
];

export type SeedReport = { nodes: number; linksInserted: number; linksDeduplicated: number; embedded: number };

/** Writes the sample memory in one transaction, then embeds its nodes. Running it again adds no rows. */
export async function seedSampleMemory(store: Store, embedder: Embedder, config: AgenticMemoryConfig): Promise<SeedReport> {
  const actions = store.transaction(() => {
    for (const node of SAMPLE_NODES) upsertNode(store, node);
    return SAMPLE_LINKS.map((link) => addEdge(store, link, { config }).action);
  });
  const embedded = await storeNodeEmbeddings(store, embedder, SAMPLE_NODES.map((node) => node.id));
  return {
    nodes: SAMPLE_NODES.length,
    linksInserted: actions.filter((a) => a === "inserted").length,
    linksDeduplicated: actions.filter((a) => a === "duplicate").length,
    embedded,
  };
}
