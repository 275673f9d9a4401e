import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isCacheFile } from "../../src/engine/cache-files.ts";

const previous = process.env.XDG_CACHE_HOME;
afterEach(() => {
  if (previous === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = previous;
});

describe("cache files", () => {
  test.each([
    ["a file in the cache folder", join("/c", "gllam", "static-table-x.bin"), true],
    ["a file in a folder of it", join("/c", "gllam", "sqlite-vec-1", "vec0.so"), true],
    ["the folder itself", join("/c", "gllam"), false],
    ["a sibling whose name starts the same", join("/c", "gllam-other", "t.bin"), false],
    ["a path that climbs out of it", join("/c", "gllam", "..", "t.bin"), false],
    ["a file elsewhere", "/home/me/table.bin", false],
  ])("%s: %p", (_, path, expected) => {
    process.env.XDG_CACHE_HOME = "/c";
    expect(isCacheFile(path)).toBe(expected);
  });
});
