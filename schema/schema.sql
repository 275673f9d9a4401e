-- GLLAM schema, version 1. Applied by initSchema() on every open; every statement is idempotent, so
-- an added index or table reaches files of the same version too (changes to existing ones need a migration).
-- Times are INTEGER milliseconds since the Unix epoch (UTC). World time (valid_*) and system time
-- (recorded_at / expired_at) are kept apart so "what did we believe on date D about time T" is a query.
-- JSON columns hold text validated by the valibot schemas in src/memory/types.ts.
-- Every memory row has a scope: users, agents or projects share one file without seeing each other.

-- ---------------------------------------------------------------- system
CREATE TABLE IF NOT EXISTS system_metadata (
  key        TEXT PRIMARY KEY,               -- embedding_model_version, embedding_dims, schema_version, ...
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- Resumable background work (taxonomy consolidation, re-embedding): where a job got to.
CREATE TABLE IF NOT EXISTS maintenance_jobs (
  id          INTEGER PRIMARY KEY,
  kind        TEXT NOT NULL,                 -- consolidate_taxonomy | reembed | sleep_cycle | ...
  scope       TEXT NOT NULL DEFAULT 'default',
  params      TEXT NOT NULL DEFAULT '{}',    -- JSON
  state       TEXT NOT NULL DEFAULT '{}',    -- JSON checkpoint
  status      TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
  started_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS idx_maintenance_jobs_open ON maintenance_jobs(kind, status);

-- ---------------------------------------------------------------- sources and trust
-- A source is where a claim came from: a document type and, within it, an individual handle.
-- The composite trust weight and its parts are stored so every resolution can be explained.
CREATE TABLE IF NOT EXISTS sources (
  id            TEXT PRIMARY KEY,
  scope         TEXT NOT NULL DEFAULT 'default',
  doc_type      TEXT NOT NULL,               -- jira_resolved, merged_pr, slack, email_thread, draft, ...
  handle        TEXT NOT NULL DEFAULT '',    -- individual author within the container ('' = the container)
  display_name  TEXT NOT NULL DEFAULT '',
  role          TEXT NOT NULL DEFAULT '',    -- system_cicd, tech_lead, verified_engineer, ...
  uri           TEXT NOT NULL DEFAULT '',
  node_id       TEXT REFERENCES semantic_nodes(id),  -- the source's node in the graph, when it has one
  trust_weight  INTEGER NOT NULL CHECK (trust_weight BETWEEN 10 AND 1000),
  w_doc_type    INTEGER NOT NULL DEFAULT 0,
  w_source      INTEGER NOT NULL DEFAULT 0,
  dw_coherence  INTEGER NOT NULL DEFAULT 0,
  dw_freshness  INTEGER NOT NULL DEFAULT 0,
  authored_at   INTEGER,
  metadata      TEXT NOT NULL DEFAULT '{}',
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  UNIQUE (scope, doc_type, handle)
) STRICT;

-- ---------------------------------------------------------------- semantic layer
CREATE TABLE IF NOT EXISTS semantic_nodes (
  id             TEXT PRIMARY KEY,
  scope          TEXT NOT NULL DEFAULT 'default',
  name           TEXT NOT NULL,
  type           TEXT NOT NULL DEFAULT 'entity', -- entity types, plus contradiction | fallacy | category | source | event
  aliases        TEXT NOT NULL DEFAULT '[]',     -- JSON array of strings
  context_prompt TEXT NOT NULL DEFAULT '',
  taxonomy_path  TEXT NOT NULL DEFAULT '/',
  is_category    INTEGER NOT NULL DEFAULT 0 CHECK (is_category IN (0, 1)),
  caveat_summary TEXT NOT NULL DEFAULT '',
  valid_from     INTEGER,                        -- for event nodes: when it happened
  valid_until    INTEGER,
  metadata       TEXT NOT NULL DEFAULT '{}',     -- JSON (fallacy kind, contradiction status, ...)
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS idx_semantic_nodes_name ON semantic_nodes(scope, name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS idx_semantic_nodes_type ON semantic_nodes(scope, type);
-- Taxonomy prefix queries: range scans on the materialized path within a scope. NOCASE because
-- SQLite turns `taxonomy_path LIKE 'prefix%'` (case-insensitive) into a range only on a NOCASE index.
CREATE INDEX IF NOT EXISTS idx_semantic_nodes_taxonomy ON semantic_nodes(scope, taxonomy_path COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS idx_semantic_nodes_uncategorized ON semantic_nodes(scope) WHERE taxonomy_path = '/' AND is_category = 0;

CREATE TABLE IF NOT EXISTS semantic_links (
  id               INTEGER PRIMARY KEY,
  scope            TEXT NOT NULL DEFAULT 'default',
  source_id        TEXT NOT NULL REFERENCES semantic_nodes(id),
  target_id        TEXT NOT NULL REFERENCES semantic_nodes(id),
  relationship     TEXT NOT NULL,
  caveats          TEXT NOT NULL DEFAULT '',
  conditions       TEXT NOT NULL DEFAULT '',
  valid_from       INTEGER NOT NULL,            -- world time the fact starts to hold
  valid_until      INTEGER,                     -- world time it stops holding (NULL = open)
  recorded_at      INTEGER NOT NULL,            -- system time we learned it
  expired_at       INTEGER,                     -- system time we stopped believing it (never deleted)
  origin_source_id TEXT REFERENCES sources(id),
  trust_weight     INTEGER NOT NULL DEFAULT 500 CHECK (trust_weight BETWEEN 10 AND 1000),
  episode_id       INTEGER REFERENCES episodes(id),
  superseded_by    INTEGER REFERENCES semantic_links(id),
  end_reason       TEXT,                        -- superseded | succeeded | contradicted | rejected | invalidated | history
  evidence_count   INTEGER NOT NULL DEFAULT 1,
  metadata         TEXT NOT NULL DEFAULT '{}',  -- JSON: provenance of re-assertions, fallacy downgrades, ...
  CHECK (valid_until IS NULL OR valid_until >= valid_from)
) STRICT;
-- Active links by source and relationship: the mutual-exclusion check on every addEdge.
CREATE INDEX IF NOT EXISTS idx_semantic_links_active ON semantic_links(scope, source_id, relationship) WHERE expired_at IS NULL;
CREATE INDEX IF NOT EXISTS idx_semantic_links_source ON semantic_links(source_id, relationship, valid_from);
CREATE INDEX IF NOT EXISTS idx_semantic_links_target ON semantic_links(target_id, relationship);
CREATE INDEX IF NOT EXISTS idx_semantic_links_origin ON semantic_links(origin_source_id);
CREATE INDEX IF NOT EXISTS idx_semantic_links_episode ON semantic_links(episode_id) WHERE episode_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_semantic_links_superseded ON semantic_links(superseded_by) WHERE superseded_by IS NOT NULL;

-- Every change the engine makes to a stored link after inserting it (its valid_until moved by a
-- succession or an invalidation, its belief retired by a conflict, an end re-pointed by a merge),
-- with the old value, so asKnownAt can rebuild what was believed at any past system time and
-- linkHistory can say why each version ended. Deleted only by forget.
CREATE TABLE IF NOT EXISTS semantic_link_events (
  id              INTEGER PRIMARY KEY,
  link_id         INTEGER NOT NULL REFERENCES semantic_links(id),
  at              INTEGER NOT NULL,             -- system time of the change
  kind            TEXT NOT NULL,                -- ended | expired | repointed | restored
  old_valid_until INTEGER,
  new_valid_until INTEGER,
  old_expired_at  INTEGER,
  by_link_id      INTEGER,                      -- the link that caused it (winner, successor), when one did
  detail          TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX IF NOT EXISTS idx_semantic_link_events_link ON semantic_link_events(link_id, at);
CREATE INDEX IF NOT EXISTS idx_semantic_link_events_by ON semantic_link_events(by_link_id) WHERE by_link_id IS NOT NULL;

-- Normalised names and aliases of every node (entity resolution: "NYC", "New York City" and
-- "new york city" meet here). Kept in step by upsertNode, mergeNodes and forget.
CREATE TABLE IF NOT EXISTS semantic_node_names (
  scope    TEXT NOT NULL,
  name_key TEXT NOT NULL,
  node_id  TEXT NOT NULL REFERENCES semantic_nodes(id),
  PRIMARY KEY (scope, name_key, node_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_semantic_node_names_node ON semantic_node_names(node_id);

-- ---------------------------------------------------------------- episodic layer
CREATE TABLE IF NOT EXISTS sessions (
  scope      TEXT NOT NULL DEFAULT 'default',
  id         TEXT NOT NULL,
  title      TEXT NOT NULL DEFAULT '',
  started_at INTEGER,
  ended_at   INTEGER,
  source_id  TEXT REFERENCES sources(id),
  metadata   TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, id)
) STRICT;
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(scope, started_at);

-- AUTOINCREMENT: an id is never given again after its episode is forgotten, so nothing derived
-- from a forgotten episode (a vector written late by a worker, a cached id) can attach to a new one.
CREATE TABLE IF NOT EXISTS episodes (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  scope        TEXT NOT NULL DEFAULT 'default',
  kind         TEXT NOT NULL DEFAULT 'turn' CHECK (kind IN ('turn', 'chunk')),
  session_id   TEXT NOT NULL,
  seq          INTEGER NOT NULL,
  role         TEXT NOT NULL DEFAULT '',        -- user | assistant | system | ''
  speaker      TEXT NOT NULL DEFAULT '',
  content      TEXT NOT NULL CHECK (length(content) > 0),
  occurred_at  INTEGER,
  source_id    TEXT REFERENCES sources(id),
  metadata     TEXT NOT NULL DEFAULT '{}',
  content_hash TEXT NOT NULL,                   -- idempotent ingest (unique per scope: idx_episodes_session)
  created_at   INTEGER NOT NULL,
  FOREIGN KEY (scope, session_id) REFERENCES sessions(scope, id)
) STRICT;
-- An episode's identity, and a session's turns in order. The content hash covers the session and
-- the position, so (scope, content_hash) alone is as unique; keyed by session first, a chunk's turns
-- go to a few neighbouring leaves instead of one random leaf each (at 1M episodes that unique index
-- was 61% of the pages a 5,000-turn commit wrote). Files made before get it by a migration
-- (src/engine/schema.ts, version 2).
CREATE UNIQUE INDEX IF NOT EXISTS idx_episodes_session ON episodes(scope, session_id, seq, content_hash);
CREATE INDEX IF NOT EXISTS idx_episodes_time ON episodes(scope, occurred_at);
-- Newest first within a scope (getRecentEpisodes walks it and stops at its limit). It replaces
-- idx_episodes_created (scope, created_at), which nothing read but the planner, to scan scopes.
CREATE INDEX IF NOT EXISTS idx_episodes_recent ON episodes(scope, coalesce(occurred_at, created_at));
DROP INDEX IF EXISTS idx_episodes_created;
CREATE INDEX IF NOT EXISTS idx_episodes_speaker ON episodes(scope, speaker);

-- The speakers of a scope, kept by triggers: speaker-aware search reads them on every query, and a
-- DISTINCT over a million episodes would not be cheap.
CREATE TABLE IF NOT EXISTS episode_speakers (
  scope   TEXT NOT NULL,
  speaker TEXT NOT NULL,
  PRIMARY KEY (scope, speaker)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS episodes_speaker_insert AFTER INSERT ON episodes WHEN new.speaker <> '' BEGIN
  INSERT INTO episode_speakers(scope, speaker) VALUES (new.scope, new.speaker) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER IF NOT EXISTS episodes_speaker_delete AFTER DELETE ON episodes WHEN old.speaker <> '' BEGIN
  DELETE FROM episode_speakers WHERE scope = old.scope AND speaker = old.speaker
    AND NOT EXISTS (SELECT 1 FROM episodes WHERE scope = old.scope AND speaker = old.speaker);
END;

-- Full-text index over episodes (porter stemming). Contentless: it indexes each turn with the turn
-- before it in its session (`context`, so a reply is found by the question it answers) without
-- storing the text twice; rows are deleted by rowid (contentless_delete).
CREATE VIRTUAL TABLE IF NOT EXISTS episodes_fts USING fts5(
  content, speaker, context,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS episodes_fts_insert AFTER INSERT ON episodes BEGIN
  INSERT INTO episodes_fts(rowid, content, speaker, context) VALUES (new.id, new.content, new.speaker,
    coalesce((SELECT p.content FROM episodes p WHERE p.scope = new.scope AND p.session_id = new.session_id AND p.seq = new.seq - 1), ''));
END;
CREATE TRIGGER IF NOT EXISTS episodes_fts_delete AFTER DELETE ON episodes BEGIN
  DELETE FROM episodes_fts WHERE rowid = old.id;
END;
CREATE TRIGGER IF NOT EXISTS episodes_fts_update AFTER UPDATE OF content, speaker ON episodes BEGIN
  DELETE FROM episodes_fts WHERE rowid = old.id;
  INSERT INTO episodes_fts(rowid, content, speaker, context) VALUES (new.id, new.content, new.speaker,
    coalesce((SELECT p.content FROM episodes p WHERE p.scope = new.scope AND p.session_id = new.session_id AND p.seq = new.seq - 1), ''));
END;

-- A token replaced whenever episodes are deleted (forget deletes their vectors with them): the KNN
-- worker keeps the cells' chunk rows across other writes, which only append (and an append lands
-- in a partition's last chunk), and reads them all again when it moves (src/episodic/kept-chunks.ts).
-- Random, not a counter, for the reason cell_centroid_tokens gives below. In the file, so that any
-- version's forget moves it.
CREATE TABLE IF NOT EXISTS removal_tokens (
  name  TEXT PRIMARY KEY CHECK (name IN ('episodes')),
  token INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS episodes_removal_token AFTER DELETE ON episodes BEGIN
  INSERT OR REPLACE INTO removal_tokens (name, token) VALUES ('episodes', random());
END;

-- Episodes waiting for a vector: filled by the insert trigger, drained by the embedding worker pool
-- (processUnembeddedBatch), so finding work never scans the episodes table.
CREATE TABLE IF NOT EXISTS episode_vector_queue (
  episode_id INTEGER PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE
) STRICT;
CREATE TRIGGER IF NOT EXISTS episodes_vector_enqueue AFTER INSERT ON episodes BEGIN
  INSERT INTO episode_vector_queue(episode_id) VALUES (new.id);
END;

-- Nodes waiting for a vector, per tier: filled by triggers when a node is created or its embedded
-- text (name, type, aliases, context) changes, whoever writes it. The static tier is written before
-- the same transaction commits by an engine that holds a static embedder (Store.beforeCommit); the
-- model tier by the embedding worker pool, like episodes.
CREATE TABLE IF NOT EXISTS node_vector_queue (
  tier    TEXT NOT NULL CHECK (tier IN ('model', 'static')),
  node_id TEXT NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  PRIMARY KEY (tier, node_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_node_vector_queue_node ON node_vector_queue(node_id);
CREATE TRIGGER IF NOT EXISTS semantic_nodes_vector_enqueue AFTER INSERT ON semantic_nodes BEGIN
  INSERT INTO node_vector_queue (tier, node_id) VALUES ('model', new.id), ('static', new.id) ON CONFLICT DO NOTHING;
END;
CREATE TRIGGER IF NOT EXISTS semantic_nodes_vector_requeue AFTER UPDATE OF name, type, aliases, context_prompt ON semantic_nodes
  WHEN new.name IS NOT old.name OR new.type IS NOT old.type OR new.aliases IS NOT old.aliases OR new.context_prompt IS NOT old.context_prompt BEGIN
  INSERT INTO node_vector_queue (tier, node_id) VALUES ('model', new.id), ('static', new.id) ON CONFLICT DO NOTHING;
END;

-- `gllam reembed` builds a tier's new vectors here, beside the live ones (a maintenance_jobs row of
-- kind 'reembed' records the rebuild), and swaps them in with one transaction at the end: a failure
-- or a crash midway leaves the live vectors and their model version as they were, and a re-run
-- resumes. `embedding` holds the bytes the tier's vec0 column takes (float32, or int8 for static).
CREATE TABLE IF NOT EXISTS node_vector_staging (
  tier      TEXT NOT NULL CHECK (tier IN ('model', 'static')),
  node_id   TEXT NOT NULL,
  scope     TEXT NOT NULL,
  embedding BLOB NOT NULL,
  staged_at INTEGER NOT NULL,
  PRIMARY KEY (tier, node_id)
) STRICT;
CREATE TABLE IF NOT EXISTS episode_vector_staging (
  tier       TEXT NOT NULL CHECK (tier IN ('model', 'static')),
  episode_id INTEGER NOT NULL,
  scope      TEXT NOT NULL,
  embedding  BLOB NOT NULL,
  PRIMARY KEY (tier, episode_id)
) STRICT;

-- Which nodes an episode mentions (the deterministic entity linker's `mentioned_in` relation).
CREATE TABLE IF NOT EXISTS episode_mentions (
  episode_id INTEGER NOT NULL REFERENCES episodes(id),
  node_id    TEXT NOT NULL REFERENCES semantic_nodes(id),
  PRIMARY KEY (episode_id, node_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_episode_mentions_node ON episode_mentions(node_id, episode_id);

CREATE TABLE IF NOT EXISTS episodic_summaries (
  id         INTEGER PRIMARY KEY,
  scope      TEXT NOT NULL DEFAULT 'default',
  session_id TEXT NOT NULL,
  summary    TEXT NOT NULL,
  start_time INTEGER,
  end_time   INTEGER,
  metadata   TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS idx_episodic_summaries_created ON episodic_summaries(scope, created_at);
CREATE INDEX IF NOT EXISTS idx_episodic_summaries_window ON episodic_summaries(scope, start_time, end_time);
-- A session's summaries, newest first (replaces idx_episodic_summaries_session, without the order).
CREATE INDEX IF NOT EXISTS idx_episodic_summaries_session_created ON episodic_summaries(scope, session_id, created_at);
DROP INDEX IF EXISTS idx_episodic_summaries_session;

-- Extraction checkpoints: which sessions an extractor (model) has already turned into nodes and links.
CREATE TABLE IF NOT EXISTS extracted_sessions (
  scope        TEXT NOT NULL DEFAULT 'default',
  session_id   TEXT NOT NULL,
  extractor    TEXT NOT NULL,
  node_count   INTEGER NOT NULL DEFAULT 0,
  link_count   INTEGER NOT NULL DEFAULT 0,
  extracted_at INTEGER NOT NULL,
  PRIMARY KEY (scope, session_id, extractor)
) STRICT;

-- Each tier's cells (src/episodic/episode-cells.ts): an inverted-file index over the episode
-- vectors of large scopes. The centroids (level 0: coarse groups, 1: cells, float32) are the
-- file's, trained once per tier; a scope listed in static_cell_scopes (model_cell_scopes) has every
-- static (model) vector also in the vec0 table episode_static_cells (episode_model_cells), created
-- with the first such scope.
CREATE TABLE IF NOT EXISTS static_cell_centroids (
  level     INTEGER PRIMARY KEY,
  dims      INTEGER NOT NULL,
  centroids BLOB NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS static_cell_scopes (
  scope TEXT PRIMARY KEY
) STRICT;
CREATE TABLE IF NOT EXISTS model_cell_centroids (
  level     INTEGER PRIMARY KEY,
  dims      INTEGER NOT NULL,
  centroids BLOB NOT NULL
) STRICT;
CREATE TABLE IF NOT EXISTS model_cell_scopes (
  scope TEXT PRIMARY KEY
) STRICT;
-- A token per tier that every write of its centroids replaces with a random one (the triggers
-- below, whoever writes), so a connection decodes the centroids again only when they changed
-- (readCentroids), not after each of its own commits. Random, not a counter: a rolled back write
-- of centroids takes a counter back to a value the next write would reuse, and the centroids
-- cached under it would be the rolled back ones.
CREATE TABLE IF NOT EXISTS cell_centroid_tokens (
  tier  TEXT PRIMARY KEY CHECK (tier IN ('model', 'static')),
  token INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS static_cell_centroids_insert AFTER INSERT ON static_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('static', random());
END;
CREATE TRIGGER IF NOT EXISTS static_cell_centroids_update AFTER UPDATE ON static_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('static', random());
END;
CREATE TRIGGER IF NOT EXISTS static_cell_centroids_delete AFTER DELETE ON static_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('static', random());
END;
CREATE TRIGGER IF NOT EXISTS model_cell_centroids_insert AFTER INSERT ON model_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('model', random());
END;
CREATE TRIGGER IF NOT EXISTS model_cell_centroids_update AFTER UPDATE ON model_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('model', random());
END;
CREATE TRIGGER IF NOT EXISTS model_cell_centroids_delete AFTER DELETE ON model_cell_centroids BEGIN
  INSERT OR REPLACE INTO cell_centroid_tokens (tier, token) VALUES ('model', random());
END;

-- ---------------------------------------------------------------- procedural layer
CREATE TABLE IF NOT EXISTS procedural_knowledge (
  id                 INTEGER PRIMARY KEY,
  scope              TEXT NOT NULL DEFAULT 'default',
  task_type          TEXT NOT NULL,
  recipe             TEXT NOT NULL,
  version            INTEGER NOT NULL DEFAULT 1,
  is_golden          INTEGER NOT NULL DEFAULT 0 CHECK (is_golden IN (0, 1)),
  helpful_count      INTEGER NOT NULL DEFAULT 0,
  unhelpful_count    INTEGER NOT NULL DEFAULT 0,
  times_applied      INTEGER NOT NULL DEFAULT 0,
  taxonomy_path      TEXT NOT NULL DEFAULT '/',
  pddl_action        TEXT,                      -- JSON {name, parameters, preconditions, effects} or NULL
  created_at         INTEGER NOT NULL,
  updated_at         INTEGER NOT NULL,
  UNIQUE (scope, task_type)
) STRICT;
CREATE INDEX IF NOT EXISTS idx_procedural_rank ON procedural_knowledge(scope, helpful_count DESC, times_applied DESC);
CREATE INDEX IF NOT EXISTS idx_procedural_taxonomy ON procedural_knowledge(scope, taxonomy_path);

-- Every earlier version of a recipe, kept when upsertProceduralKnowledge bumps the version.
CREATE TABLE IF NOT EXISTS procedural_versions (
  procedure_id INTEGER NOT NULL REFERENCES procedural_knowledge(id),
  version      INTEGER NOT NULL,
  recipe       TEXT NOT NULL,
  pddl_action  TEXT,
  recorded_at  INTEGER NOT NULL,
  PRIMARY KEY (procedure_id, version)
) STRICT, WITHOUT ROWID;

-- The episode lexicon (src/episodic/lexicon/): an inverted index of its own over the episodes of
-- large scopes, for BM25 that costs a few nanoseconds a posting (FTS5's bm25() costs ~1 µs per
-- matching episode). Episodes are indexed in blocks of consecutive ids, merged eight at a time
-- into the next level; a block's postings for a term are one row. Derived data: rebuilt by ingest.
CREATE TABLE IF NOT EXISTS episode_lexicon_blocks (
  scope     TEXT NOT NULL,
  block     INTEGER NOT NULL,  -- the first episode id the block covers
  last_id   INTEGER NOT NULL,  -- the last episode id it covers
  level     INTEGER NOT NULL,
  documents INTEGER NOT NULL,
  tokens    INTEGER NOT NULL,
  PRIMARY KEY (scope, block)
) STRICT, WITHOUT ROWID;
-- A rowid table with its key in an index: a WITHOUT ROWID table keeps whole rows in its b-tree's
-- interior cells, and a look-up loaded the postings (tens of KB, on overflow pages) of every key it
-- compared: ~20-30 us a row at 1M, against ~2 us here. Files made with that layout are copied into
-- this one when opened for writing (initSchema, src/engine/schema.ts).
CREATE TABLE IF NOT EXISTS episode_lexicon_postings (
  scope     TEXT NOT NULL,
  block     INTEGER NOT NULL,
  term      TEXT NOT NULL,
  documents INTEGER NOT NULL,
  postings  BLOB NOT NULL,     -- src/episodic/lexicon/postings.ts
  UNIQUE (scope, block, term)
) STRICT;

-- @vectors: created once the embedder's dimension is known ({{dims}} is substituted by initSchema).
-- Cosine distance, so embedders that do not normalise their vectors rank correctly too.
CREATE VIRTUAL TABLE IF NOT EXISTS semantic_embeddings USING vec0(
  node_id TEXT PRIMARY KEY,
  scope TEXT PARTITION KEY,
  embedding float[{{dims}}] distance_metric=cosine
);
CREATE VIRTUAL TABLE IF NOT EXISTS episode_vectors USING vec0(
  episode_id INTEGER PRIMARY KEY,
  scope TEXT PARTITION KEY,
  embedding float[{{dims}}] distance_metric=cosine
);

-- @static-vectors: the static embedder's tier, written in the transaction that stores an episode or
-- changes a node ({{dims}} is its dimension, which may differ from the model tier's). int8: a quarter of the space of float, and
-- cosine distance ignores each vector's scale.
CREATE VIRTUAL TABLE IF NOT EXISTS episode_static_vectors USING vec0(
  episode_id INTEGER PRIMARY KEY,
  scope TEXT PARTITION KEY,
  embedding int8[{{dims}}] distance_metric=cosine
);
CREATE VIRTUAL TABLE IF NOT EXISTS node_static_vectors USING vec0(
  node_id TEXT PRIMARY KEY,
  scope TEXT PARTITION KEY,
  embedding int8[{{dims}}] distance_metric=cosine
);

