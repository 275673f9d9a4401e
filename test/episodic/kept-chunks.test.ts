import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { seededRandom } from "../../src/bench/random.ts";
import { openConnection } from "../../src/engine/connections.ts";
import { resolveVecExtension } from "../../src/engine/vec-extension.ts";
import { int8Distances, int8Norm, prewarmInt8Partitions, scanInt8Partitions } from "../../src/episodic/int8-scan.ts";
import { KeptChunks, mostlyKept } from "../../src/episodic/kept-chunks.ts";
import { makeTempDir } from "../helpers.ts";

const vecPath = await resolveVecExtension();
const DIMS = 32;
/** vec0 chunks of 8 vectors: a chunk is 256 bytes of vectors and 64 of norms. */
const CHUNK = 8 * DIMS + 8 * 8;
const randomInt8 = (random: () => number) => Int8Array.from({ length: DIMS }, () => Math.floor(random() * 256) - 128);

/** A file with a writer and a reader, as the KNN worker reads a file another connection writes. */
function openPair() {
  const path = join(makeTempDir(), "kept.db");
  const writer = openConnection(path, "writer", vecPath);
  const make = () => writer.run(`CREATE VIRTUAL TABLE t USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding int8[${DIMS}] distance_metric=cosine, chunk_size=8)`);
  make();
  const reader = openConnection(path, "reader", vecPath);
  const insert = (id: number, cell: number, vector: Int8Array) => writer.query("INSERT INTO t (episode_id, scope, cell, embedding) VALUES (?, 'a', ?, vec_int8(?))").run(id, cell, vector);
  return { writer, reader, make, insert, close: () => [reader, writer].forEach((db) => db.close()) };
}

const CELLS: ["a", number][] = [0, 1, 2, 3].map((cell) => ["a", cell]);

/** A pair holding `count` random vectors spread over the four cells, the random source to go on with, and an empty 1 MiB KeptChunks. */
function filledPair(seed: number, count: number) {
  const random = seededRandom(seed).next;
  const pair = openPair();
  for (let id = 1; id <= count; id++) pair.insert(id, id % 4, randomInt8(random));
  return { ...pair, random, kept: new KeptChunks(1 << 20) };
}

describe("chunks kept between scans", () => {
  // Room for every chunk, for three (the least recently used go), for one, and for none (each is read and scored as without).
  test.each([
    ["every chunk", 1 << 20],
    ["three chunks", 3 * CHUNK],
    ["one chunk", CHUNK],
    ["no chunk", CHUNK - 1],
  ])("with room for %s, scans answer as scans of what is stored: through inserts, deletes, a freed slot filled again and a table made again", (_, room) => {
    const random = seededRandom(31).next;
    const { writer, reader, make, insert, close } = openPair();
    const kept = new KeptChunks(room);
    const expectSame = (q: Int8Array, k: number) => {
      // The reader's plain scan reads everything again: the kept chunks must give its answer, to the bit.
      const plain = scanInt8Partitions(reader, "t", CELLS, q, k);
      expect(scanInt8Partitions(reader, "t", CELLS, q, k, undefined, kept)).toEqual(plain);
      // As the worker does once it has answered.
      kept.keepWaiting(() => false);
      return plain;
    };
    try {
      for (let id = 1; id <= 60; id++) insert(id, id % 4, randomInt8(random));
      const queries = Array.from({ length: 4 }, () => randomInt8(random));
      for (const q of queries) for (const k of [1, 5, 60]) expectSame(q, k);
      // New vectors fill the partitions' last chunks and start new ones.
      for (let id = 61; id <= 75; id++) insert(id, id % 4, randomInt8(random));
      for (const q of queries) expectSame(q, 10);
      // The nearest goes, and a new episode with the query's own vector may take its slot.
      const q = queries[0]!;
      const [nearest] = expectSame(q, 1);
      writer.run("DELETE FROM t WHERE episode_id = ?", [nearest!.episodeId]);
      insert(76, nearest!.episodeId % 4, q);
      expect(expectSame(q, 1)[0]!.episodeId).toBe(76);
      // Made again with other vectors under the same ids and cells: the chunks' rows may be byte for byte the same.
      writer.run("DROP TABLE t");
      make();
      for (let id = 1; id <= 60; id++) insert(id, id % 4, randomInt8(random));
      for (const q of queries) expectSame(q, 5);
      expect(kept.bytes).toBeLessThanOrEqual(room);
    } finally {
      close();
    }
  });

  test("a chunk is read once while nothing is written; a write makes only the chunks it changed read again", () => {
    // 4 cells of 3 full chunks each (96 vectors), one changed later.
    const { reader, insert, close, random, kept } = filledPair(37, 96);
    try {
      const q = randomInt8(random);
      const scanAndKeep = () => {
        scanInt8Partitions(reader, "t", CELLS, q, 10, undefined, kept);
        kept.keepWaiting(() => false);
      };
      scanAndKeep();
      expect([kept.misses, kept.hits]).toEqual([12, 0]);
      scanAndKeep();
      expect([kept.misses, kept.hits]).toEqual([12, 12]);
      expect(kept.bytes).toBe(12 * CHUNK);
      // A new vector in cell 1 starts a fourth chunk there: the twelve kept are still good.
      insert(97, 1, randomInt8(random));
      scanAndKeep();
      expect([kept.misses, kept.hits]).toEqual([13, 24]);
      // Scored where kept, the distances are those of the chunk read and scored again.
      const chunk = reader.query<{ vectors: Uint8Array }, []>("SELECT vectors FROM t_vector_chunks00 ORDER BY rowid LIMIT 1").get()!;
      const row = reader.query<{ chunkId: number; validity: Uint8Array; rowids: Uint8Array }, []>("SELECT chunk_id AS chunkId, validity, rowids FROM t_chunks ORDER BY chunk_id LIMIT 1").get()!;
      const again = Array.from(int8Distances(q, chunk.vectors, 8));
      expect(Array.from(kept.distances(row, q, int8Norm(q), () => chunk.vectors)!)).toEqual(again);
      expect([kept.misses, kept.hits]).toEqual([13, 25]);
    } finally {
      close();
    }
  });

  // Cell c holds ids c, c + 4, ... in three chunks of 8 (ids below 33 in its first); the file has the removal token
  // forget moves (schema.sql's trigger on episodes), or not.
  test.each([
    ["with the file's removal token, a write reads again only the partitions whose last chunk it changed; a deletion, which moves the token, all", true],
    ["without a removal token, every write reads every partition again", false],
  ])("%s", (_, withToken) => {
    const { writer, reader, insert, close, random, kept } = filledPair(53, 96);
    writer.run("CREATE TABLE other (x)");
    if (withToken) writer.run("CREATE TABLE removal_tokens (name TEXT PRIMARY KEY, token INTEGER NOT NULL) STRICT, WITHOUT ROWID");
    const forget = (id: number) => {
      writer.run("DELETE FROM t WHERE episode_id = ?", [id]);
      if (withToken) writer.run("INSERT OR REPLACE INTO removal_tokens (name, token) VALUES ('episodes', random())");
    };
    // The query is episode 2's own vector: the nearest, in cell 2's first chunk.
    const q = new Int8Array(reader.query<{ embedding: Uint8Array }, []>("SELECT embedding FROM t WHERE episode_id = 2").get()!.embedding.buffer);
    const scan = () => {
      const plain = scanInt8Partitions(reader, "t", CELLS, q, 10);
      expect(scanInt8Partitions(reader, "t", CELLS, q, 10, undefined, kept)).toEqual(plain);
      kept.keepWaiting(() => false);
      return { first: plain[0]!.episodeId, reads: kept.rowReads };
    };
    try {
      expect(scan()).toEqual({ first: 2, reads: 4 });
      expect(scan()).toEqual({ first: 2, reads: 4 });
      // A write elsewhere in the file.
      writer.run("INSERT INTO other VALUES (1)");
      expect(scan()).toEqual({ first: 2, reads: withToken ? 4 : 8 });
      // Cell 1's three chunks are full: a new vector starts a fourth; the next goes into it.
      insert(97, 1, q);
      expect(scan()).toEqual({ first: 97, reads: withToken ? 5 : 12 });
      insert(101, 1, randomInt8(random));
      expect(scan()).toEqual({ first: 97, reads: withToken ? 6 : 16 });
      // Forgetting an episode in a first chunk (its slot freed there, never filled again) and the one in cell 1's last.
      forget(2);
      expect(scan()).toEqual({ first: 97, reads: withToken ? 10 : 20 });
      forget(97);
      expect(scan().reads).toBe(withToken ? 14 : 24);
      expect(kept.hits).toBeGreaterThan(0);
    } finally {
      close();
    }
  });

  test("a scan keeps nothing: a chunk it read waits, is read no second time while it waits, and is kept by keepWaiting until told to stop", () => {
    // 4 cells of 2 full chunks each.
    const { reader, close, random, kept } = filledPair(47, 64);
    try {
      const rows = reader.query<{ chunkId: number; validity: Uint8Array; rowids: Uint8Array }, []>("SELECT chunk_id AS chunkId, validity, rowids FROM t_chunks ORDER BY chunk_id").all();
      const vectorsOf = reader.query<{ vectors: Uint8Array }, [number]>("SELECT vectors FROM t_vector_chunks00 WHERE rowid = ?");
      expect(rows).toHaveLength(8);
      const q = randomInt8(random);
      kept.begin(reader, "t", DIMS);
      let reads = 0;
      const distancesOf = (row: (typeof rows)[number]) =>
        Array.from(kept.distances(row, q, int8Norm(q), () => (reads++, vectorsOf.get(row.chunkId)!.vectors)));
      const expected = rows.map((row) => Array.from(int8Distances(q, vectorsOf.get(row.chunkId)!.vectors, 8)));
      // Scored as read, kept by nothing: each waits.
      expect(rows.map(distancesOf)).toEqual(expected);
      expect([reads, kept.misses, kept.hits, kept.bytes, kept.waitingBytes]).toEqual([8, 8, 0, 0, 8 * 8 * DIMS]);
      // Scored again from the copies that wait, not read again.
      expect(rows.map(distancesOf)).toEqual(expected);
      expect([reads, kept.misses, kept.hits]).toEqual([8, 16, 0]);
      // Told to stop after three: three are kept, five still wait.
      let asked = 0;
      kept.keepWaiting(() => asked++ === 3);
      expect([kept.bytes, kept.waitingBytes]).toEqual([3 * CHUNK, 5 * 8 * DIMS]);
      kept.keepWaiting(() => false);
      expect([kept.bytes, kept.waitingBytes]).toEqual([8 * CHUNK, 0]);
      expect(rows.map(distancesOf)).toEqual(expected);
      expect([reads, kept.misses, kept.hits]).toEqual([8, 16, 8]);
    } finally {
      close();
    }
  });

  test("a prewarm keeps the partitions' chunks before any scan, stops when told and goes on from there, and keeps a changed chunk again", () => {
    // 4 cells of 3 full chunks each.
    const { writer, reader, insert, close, random, kept } = filledPair(53, 96);
    try {
      const q = randomInt8(random);
      // Cell 0's chunks read by a scan wait to be kept; then one of them changes (its episode 4 goes).
      scanInt8Partitions(reader, "t", [CELLS[0]!], q, 5, undefined, kept);
      writer.run("DELETE FROM t WHERE episode_id = 4");
      let asked = 0;
      // Told to stop before the sixth chunk: cell 0's three and two of cell 1's are kept, cell 1 is where it goes on.
      expect(prewarmInt8Partitions(reader, "t", CELLS, DIMS, kept, 0, () => ++asked === 6)).toEqual({ next: 1, full: false });
      expect(kept.chunks).toBe(5);
      expect(prewarmInt8Partitions(reader, "t", CELLS, DIMS, kept, 1, () => false)).toEqual({ next: 4, full: false });
      expect([kept.chunks, kept.bytes, kept.waitingBytes]).toEqual([12, 12 * CHUNK, 0]);
      expect(scanInt8Partitions(reader, "t", CELLS, q, 10, undefined, kept)).toEqual(scanInt8Partitions(reader, "t", CELLS, q, 10));
      expect([kept.misses, kept.hits]).toEqual([3, 12]);
      // A new vector in cell 2 starts a fourth chunk there: only it is kept anew.
      insert(97, 2, randomInt8(random));
      expect(prewarmInt8Partitions(reader, "t", CELLS, DIMS, kept, 0, () => false)).toEqual({ next: 4, full: false });
      expect(kept.chunks).toBe(13);
      expect(scanInt8Partitions(reader, "t", CELLS, q, 96, undefined, kept)).toEqual(scanInt8Partitions(reader, "t", CELLS, q, 96));
      expect([kept.misses, kept.hits]).toEqual([3, 25]);
    } finally {
      close();
    }
  });

  test("a prewarm stops where its room is full and lets no kept chunk go for the rest", () => {
    const { reader, close, random } = filledPair(59, 96);
    const kept = new KeptChunks(5 * CHUNK);
    try {
      const q = randomInt8(random);
      // Cell 3's chunks, kept by a scan first.
      scanInt8Partitions(reader, "t", [CELLS[3]!], q, 5, undefined, kept);
      kept.keepWaiting(() => false);
      expect(kept.chunks).toBe(3);
      for (let round = 0; round < 2; round++) {
        expect(prewarmInt8Partitions(reader, "t", CELLS, DIMS, kept, 0, () => false)).toEqual({ next: 0, full: true });
        expect(kept.chunks).toBe(5);
      }
      // Cell 3's three are still kept, with two of cell 0's.
      scanInt8Partitions(reader, "t", [CELLS[3]!], q, 5, undefined, kept);
      expect([kept.misses, kept.hits]).toEqual([3, 3]);
    } finally {
      close();
    }
  });

  test("past its room, the chunk used least recently goes", () => {
    const random = seededRandom(43).next;
    const { reader, insert, close } = openPair();
    const kept = new KeptChunks(2 * CHUNK);
    try {
      // One chunk per cell.
      for (let id = 1; id <= 24; id++) insert(id, id % 3, randomInt8(random));
      const q = randomInt8(random);
      const scan = (cell: number) => {
        scanInt8Partitions(reader, "t", [["a", cell]], q, 3, undefined, kept);
        kept.keepWaiting(() => false);
      };
      const counts = () => [kept.misses, kept.hits];
      scan(0);
      scan(1);
      scan(0);
      expect(counts()).toEqual([2, 1]);
      // Cell 1's chunk was used least recently: cell 2's takes its place, cell 0's stays.
      scan(2);
      scan(0);
      expect(counts()).toEqual([3, 2]);
      scan(1);
      expect(counts()).toEqual([4, 2]);
    } finally {
      close();
    }
  });

  test("a scan of another table or another dimension lets the kept chunks go", () => {
    const random = seededRandom(41).next;
    const { writer, reader, insert, close } = openPair();
    const kept = new KeptChunks(1 << 20);
    try {
      for (let id = 1; id <= 16; id++) insert(id, 0, randomInt8(random));
      writer.run("CREATE VIRTUAL TABLE u USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding int8[16] distance_metric=cosine, chunk_size=8)");
      const rows = Array.from({ length: 16 }, () => Int8Array.from({ length: 16 }, () => Math.floor(random() * 256) - 128));
      rows.forEach((vector, i) => writer.query("INSERT INTO u (episode_id, scope, cell, embedding) VALUES (?, 'a', 0, vec_int8(?))").run(i + 1, vector));
      const q32 = randomInt8(random);
      const q16 = rows[3]!;
      for (let round = 0; round < 2; round++) {
        expect(scanInt8Partitions(reader, "t", [["a", 0]], q32, 3, undefined, kept)).toEqual(scanInt8Partitions(reader, "t", [["a", 0]], q32, 3));
        kept.keepWaiting(() => false);
        expect(scanInt8Partitions(reader, "u", [["a", 0]], q16, 3, undefined, kept)).toEqual(scanInt8Partitions(reader, "u", [["a", 0]], q16, 3));
        kept.keepWaiting(() => false);
      }
      // Each switch read its table's two chunks again.
      expect([kept.misses, kept.hits]).toEqual([8, 0]);
    } finally {
      close();
    }
  });
});

test.each([
  [0, 0, false],
  [0, 12, false],
  [11, 1, true],
  [9, 1, true],
  [8, 1, false],
  [160, 12, true],
  [150, 22, false],
])("%p chunks kept and %p read: mostly kept is %p", (hits, misses, expected) => expect(mostlyKept(hits, misses)).toBe(expected));
