import { Database } from "bun:sqlite";
import { describe, expect, spyOn, test } from "bun:test";
import { seededRandom } from "../../src/bench/random.ts";
import { loadVecExtension, resolveVecExtension } from "../../src/engine/vec-extension.ts";
import { int8Distances, int8Dots, int8Kernel, int8Norm, NearestK, scanInt8Partitions } from "../../src/episodic/int8-scan.ts";

function randomInt8(random: () => number, dims: number): Int8Array {
  return Int8Array.from({ length: dims }, () => Math.floor(random() * 256) - 128);
}

/** sqlite-vec 0.1.9's distance_cosine_int8, written plainly: integer sums, then 1 - dot / (|v| |q|) rounded to float. */
function plainDistance(v: Int8Array, q: Int8Array): number {
  const sum = (term: (i: number) => number) => Array.from(q, (_, i) => term(i)).reduce((a, b) => a + b, 0);
  return Math.fround(1 - sum((i) => v[i]! * q[i]!) / (Math.sqrt(sum((i) => v[i]! ** 2)) * Math.sqrt(sum((i) => q[i]! ** 2))));
}

const vecPath = await resolveVecExtension();
function openVec(): Database {
  const db = new Database(":memory:");
  loadVecExtension(db, vecPath);
  return db;
}

describe("int8 distances (WebAssembly)", () => {
  test("equal sqlite-vec's int8 cosine distance to the bit, extremes included, at several dimensions", () => {
    const random = seededRandom(7).next;
    const db = openVec();
    const vec = db.query<{ d: number }, [Int8Array, Int8Array]>("SELECT vec_distance_cosine(vec_int8(?), vec_int8(?)) AS d");
    for (const dims of [16, 48, 256]) {
      const q = randomInt8(random, dims);
      const vectors = Array.from({ length: 40 }, () => randomInt8(random, dims));
      vectors.push(new Int8Array(dims).fill(-128), new Int8Array(dims).fill(127), q.slice());
      const flat = new Uint8Array(vectors.length * dims);
      vectors.forEach((v, i) => flat.set(new Uint8Array(v.buffer), i * dims));
      const distances = Array.from(int8Distances(q, flat, vectors.length));
      expect(distances).toEqual(vectors.map((v) => plainDistance(v, q)));
      expect(distances).toEqual(vectors.map((v) => vec.get(v, q)!.d));
    }
    db.close();
  });

  // normedDistances scores four vectors a pass, then the rest one at a time: counts around multiples of four.
  test.each([16, 48, 256])("normedDistances (kept norms, the query widened to int16) equal distances at %i dimensions, for any count", (dims) => {
    const random = seededRandom(dims).next;
    const q = randomInt8(random, dims);
    const vectors = Array.from({ length: 13 }, () => randomInt8(random, dims));
    vectors.push(new Int8Array(dims).fill(-128), new Int8Array(dims).fill(127), q.map((x) => -x));
    const flat = new Uint8Array(vectors.length * dims);
    vectors.forEach((v, i) => flat.set(new Uint8Array(v.buffer), i * dims));
    const expected = Array.from(int8Distances(q, flat, vectors.length));
    const kernel = int8Kernel();
    const [queryAt, out, base] = [0, 2 * dims, 2 * dims + 64 * 4];
    const norms = base + flat.length;
    kernel.memory.grow(1);
    new Int16Array(kernel.memory.buffer, queryAt, dims).set(q);
    new Uint8Array(kernel.memory.buffer).set(flat, base);
    kernel.norms(base, vectors.length, dims, norms);
    for (const count of [1, 2, 3, 4, 5, 7, 8, 9, vectors.length]) {
      // Past the count nothing is written: a sentinel stays.
      new Float32Array(kernel.memory.buffer, out, count + 1).fill(-7);
      kernel.normedDistances(queryAt, int8Norm(q), base, count, dims, norms, out);
      expect(Array.from(new Float32Array(kernel.memory.buffer, out, count + 1))).toEqual([...expected.slice(0, count), -7]);
    }
  });

  test("refuse a dimension that is not a multiple of 16 or too few bytes", () => {
    expect(() => int8Distances(new Int8Array(10), new Uint8Array(10), 1)).toThrow(/multiple of 16/);
    expect(() => int8Distances(new Int8Array(16), new Uint8Array(16), 2)).toThrow(/32 bytes/);
  });
});

describe("int8 dot products of up to three queries in one pass (WebAssembly)", () => {
  test("equal the plain integer sums, extremes included, for one, two and three queries", () => {
    const random = seededRandom(11).next;
    for (const dims of [16, 96, 256]) {
      const vectors = Array.from({ length: 30 }, () => randomInt8(random, dims));
      vectors.push(new Int8Array(dims).fill(-128), new Int8Array(dims).fill(127), new Int8Array(dims));
      const flat = new Uint8Array(vectors.length * dims);
      vectors.forEach((v, i) => flat.set(new Uint8Array(v.buffer), i * dims));
      const queries = [randomInt8(random, dims), new Int8Array(dims).fill(-128), randomInt8(random, dims)];
      for (const asked of [queries.slice(0, 1), queries.slice(0, 2), queries]) {
        const dots = Array.from(int8Dots(asked, flat, vectors.length));
        const plain = vectors.flatMap((v) => [0, 1, 2].map((j) => (asked[j] ?? asked[0]!).reduce((sum, q, k) => sum + q * v[k]!, 0)));
        expect(dots).toEqual(plain);
      }
    }
  });

  test("refuse no query, four, or queries of another dimension", () => {
    expect(() => int8Dots([], new Uint8Array(16), 1)).toThrow(/1 to 3 queries/);
    expect(() => int8Dots(Array.from({ length: 4 }, () => new Int8Array(16)), new Uint8Array(16), 1)).toThrow(/1 to 3 queries/);
    expect(() => int8Dots([new Int8Array(16), new Int8Array(32)], new Uint8Array(32), 1)).toThrow(/1 to 3 queries/);
  });
});

describe("NearestK", () => {
  test("keeps what sorting everything and taking the first k keeps, nearest first and the larger id first among equals", () => {
    const random = seededRandom(9).next;
    for (const k of [0, 1, 5, 50, 400]) {
      // Few distinct distances: many ties, at the boundary too.
      const items = Array.from({ length: 300 }, (_, id) => ({ episodeId: id, distance: Math.floor(random() * 20) / 20 }));
      const nearest = new NearestK(k);
      for (const item of items) nearest.offer(item.episodeId, item.distance);
      const sorted = [...items].sort((a, b) => a.distance - b.distance || b.episodeId - a.episodeId).slice(0, k);
      expect(nearest.hits()).toEqual(sorted);
    }
  });
});

describe("scanning a vec0 table's chunks", () => {
  test("the same neighbours and distances as vec0's KNN in each partition, after deletes, with partly filled chunks and k past the count", () => {
    const random = seededRandom(13).next;
    const db = openVec();
    db.run("CREATE VIRTUAL TABLE t USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, cell INTEGER PARTITION KEY, embedding int8[32] distance_metric=cosine, chunk_size=8)");
    const insert = db.query("INSERT INTO t (episode_id, scope, cell, embedding) VALUES (?, ?, ?, vec_int8(?))");
    // Some vectors repeat (ties), one is all zeros (no direction: vec0 returns it first, with a null distance).
    const pool = Array.from({ length: 30 }, () => randomInt8(random, 32));
    for (let id = 1; id <= 300; id++) insert.run(id, id % 2 ? "a" : "b", id % 5, pool[Math.floor(random() * pool.length)]!);
    insert.run(1000, "a", 1, new Int8Array(32));
    for (let id = 3; id <= 300; id += 7) db.run("DELETE FROM t WHERE episode_id = ?", [id]);
    const vecKnn = db.query<{ episodeId: number; distance: number }, [Int8Array, number, string, number]>(
      "SELECT episode_id AS episodeId, distance FROM t WHERE embedding MATCH vec_int8(?) AND k = ? AND scope = ? AND cell = ? ORDER BY distance",
    );
    for (let trial = 0; trial < 5; trial++) {
      const q = randomInt8(random, 32);
      for (const [scope, cell] of [["a", 1], ["b", 4], ["a", 0]] as [string, number][]) {
        for (const k of [1, 7, 100]) {
          const expected = vecKnn.all(q, k, scope, cell).filter((hit) => hit.distance !== null);
          const scanned = scanInt8Partitions(db, "t", [[scope, cell]], q, k);
          expect(scanned.map((hit) => hit.distance)).toEqual(expected.map((hit) => hit.distance));
          // vec0 orders equal distances its own way: the same ids except among those tied at the k-th distance.
          const last = expected.at(-1)?.distance;
          const before = (hits: { episodeId: number; distance: number }[]) => new Set(hits.filter((hit) => hit.distance !== last).map((hit) => hit.episodeId));
          expect(before(scanned)).toEqual(before(expected));
          const tied = new Set(vecKnn.all(q, 300, scope, cell).filter((hit) => hit.distance === last).map((hit) => hit.episodeId));
          for (const hit of scanned.filter((hit) => hit.distance === last)) expect(tied).toContain(hit.episodeId);
        }
      }
      // Several partitions at once: the k nearest of their union.
      const union = [0, 1, 2, 3, 4].flatMap((cell) => vecKnn.all(q, 300, "a", cell)).filter((hit) => hit.distance !== null);
      union.sort((a, b) => a.distance - b.distance || b.episodeId - a.episodeId);
      expect(scanInt8Partitions(db, "t", [0, 1, 2, 3, 4].map((cell) => ["a", cell] as [string, number]), q, 20)).toEqual(union.slice(0, 20));
    }
    // A table partitioned by scope alone (episode_static_vectors): the scope's k nearest, as vec0 finds them.
    db.run("CREATE VIRTUAL TABLE s USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, embedding int8[32] distance_metric=cosine, chunk_size=8)");
    db.run("INSERT INTO s (episode_id, scope, embedding) SELECT episode_id, scope, embedding FROM t WHERE episode_id < 1000");
    const q = randomInt8(random, 32);
    const byScope = db.query<{ episodeId: number; distance: number }, [Int8Array, string]>("SELECT episode_id AS episodeId, distance FROM s WHERE embedding MATCH vec_int8(?) AND k = 1000 AND scope = ? ORDER BY distance").all(q, "b");
    byScope.sort((a, b) => a.distance - b.distance || b.episodeId - a.episodeId);
    expect(scanInt8Partitions(db, "s", [["b"]], q, 15)).toEqual(byScope.slice(0, 15));
    expect(scanInt8Partitions(db, "t", [["a", 1]], pool[0]!, 1000).map((hit) => hit.episodeId)).not.toContain(1000);
    expect(scanInt8Partitions(db, "t", [], pool[0]!, 10)).toEqual([]);
    expect(scanInt8Partitions(db, "t", [["c", 1]], pool[0]!, 10)).toEqual([]);
    db.close();
  });

  test("a scan after writes, a deleted slot filled again, or a table made again sees them (the vectors kept between scans are checked)", () => {
    const random = seededRandom(21).next;
    const db = openVec();
    const make = () => db.run("CREATE VIRTUAL TABLE t USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, embedding int8[32] distance_metric=cosine, chunk_size=8)");
    make();
    const insert = db.query("INSERT INTO t (episode_id, scope, embedding) VALUES (?, 'a', vec_int8(?))");
    const vecKnn = (q: Int8Array) =>
      db
        .query<{ episodeId: number; distance: number }, [Int8Array]>("SELECT episode_id AS episodeId, distance FROM t WHERE embedding MATCH vec_int8(?) AND k = 1000 AND scope = 'a' ORDER BY distance")
        .all(q)
        .sort((a, b) => a.distance - b.distance || b.episodeId - a.episodeId)
        .slice(0, 5);
    for (let id = 1; id <= 20; id++) insert.run(id, randomInt8(random, 32));
    const q = randomInt8(random, 32);
    expect(scanInt8Partitions(db, "t", [["a"]], q, 5)).toEqual(vecKnn(q));
    // The query's nearest so far goes; a new episode lands in its freed slot (the same chunk, the same validity) or after.
    const [nearest] = scanInt8Partitions(db, "t", [["a"]], q, 1);
    db.run("DELETE FROM t WHERE episode_id = ?", [nearest!.episodeId]);
    insert.run(21, q);
    expect(scanInt8Partitions(db, "t", [["a"]], q, 5)).toEqual(vecKnn(q));
    expect(scanInt8Partitions(db, "t", [["a"]], q, 1)[0]!.episodeId).toBe(21);
    // Dropped and made again with other vectors under the same ids: chunk ids start again.
    db.run("DROP TABLE t");
    make();
    for (let id = 1; id <= 21; id++) db.query("INSERT INTO t (episode_id, scope, embedding) VALUES (?, 'a', vec_int8(?))").run(id, randomInt8(random, 32));
    expect(scanInt8Partitions(db, "t", [["a"]], q, 5)).toEqual(vecKnn(q));
    db.close();
  });

  test("a scan that copied 8 MB of chunks or more asks for a collection; a smaller one does not", () => {
    const random = seededRandom(5).next;
    const db = openVec();
    db.run("CREATE VIRTUAL TABLE t USING vec0(episode_id INTEGER PRIMARY KEY, scope TEXT PARTITION KEY, embedding int8[256] distance_metric=cosine, chunk_size=512)");
    const insert = db.query("INSERT INTO t (episode_id, scope, embedding) VALUES (?, ?, vec_int8(?))");
    const row = randomInt8(random, 256);
    db.transaction(() => {
      // 66 chunks of 512 vectors of 256 bytes: 8.25 MB in "big", one chunk in "small".
      for (let id = 1; id <= 66 * 512; id++) insert.run(id, "big", row);
      for (let id = 1; id <= 100; id++) insert.run(100_000 + id, "small", randomInt8(random, 256));
    })();
    const gc = spyOn(Bun, "gc");
    try {
      scanInt8Partitions(db, "t", [["small"]], row, 5);
      expect(gc).not.toHaveBeenCalled();
      expect(scanInt8Partitions(db, "t", [["big"]], row, 5)).toHaveLength(5);
      expect(gc).toHaveBeenCalledTimes(1);
      expect(gc).toHaveBeenCalledWith(false);
    } finally {
      gc.mockRestore();
      db.close();
    }
  });
});
