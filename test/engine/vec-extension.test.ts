import { describe, expect, test } from "bun:test";
import { posix, win32 } from "node:path";
import { cacheDirsFor } from "../../src/engine/cache-files.ts";
import { embeddedPath, isEmbeddedPath } from "../../src/engine/embedded.ts";
import { targetName, VEC_TARGETS, vecCacheName } from "../../src/engine/vec-extension.ts";

/** Where the sqlite-vec library is copied out of the executable, on every platform (Windows by its path rules). */
const bytes = new TextEncoder().encode("not really a library");
const hash = Bun.hash(bytes).toString(16);

describe("embedded paths", () => {
  test.each([
    ["/$bunfs/root/vec0.so", true],
    ["file:///$bunfs/root/cli/main.js", true],
    ["B:/~BUN/root/vec0.dll", true],
    ["B:\\~BUN\\root\\vec0.dll", true],
    ["file:///B:/~BUN/root/cli/main.js", true],
    ["C:\\Program Files\\gllam\\gllam.exe", false],
    ["C:\\Users\\Ann Lee\\src\\gllam\\node_modules\\sqlite-vec-windows-x64\\vec0.dll", false],
    ["/work/node_modules/sqlite-vec-linux-x64/vec0.so", false],
    ["/home/ann/$bunfsx/vec0.so", false],
  ])("%s inside the executable: %p", (path, inside) => {
    expect(isEmbeddedPath(path)).toBe(inside);
  });

  test("each platform's root, and files below it", () => {
    expect(embeddedPath("embed/embed-worker.js", "linux")).toBe("/$bunfs/root/embed/embed-worker.js");
    expect(embeddedPath("static-table.bin", "win32")).toBe("B:/~BUN/root/static-table.bin");
    expect(isEmbeddedPath(embeddedPath("x", "win32"))).toBe(true);
  });
});

describe("the extension's cache file", () => {
  test.each([
    ["/$bunfs/root/vec0.so", "vec0.so"],
    ["/$bunfs/root/vec0.dylib", "vec0.dylib"],
    ["B:/~BUN/root/vec0.dll", "vec0.dll"],
  ])("%s keeps its kind: %s", (embedded, file) => {
    expect(vecCacheName(bytes, embedded)).toBe(`sqlite-vec-${hash}/${file}`);
  });

  test("Windows: beside the cache in a home folder with spaces, joined with backslashes", () => {
    const dirs = cacheDirsFor({ env: {}, home: "C:\\Users\\Ann Lee", tmp: "C:\\Users\\ANNLEE~1\\AppData\\Local\\Temp", uid: undefined, path: win32 });
    expect(dirs).toEqual(["C:\\Users\\Ann Lee\\.cache\\gllam", "C:\\Users\\ANNLEE~1\\AppData\\Local\\Temp\\gllam-user"]);
    expect(win32.join(dirs[0]!, vecCacheName(bytes, "B:/~BUN/root/vec0.dll"))).toBe(`C:\\Users\\Ann Lee\\.cache\\gllam\\sqlite-vec-${hash}\\vec0.dll`);
  });

  test("XDG_CACHE_HOME first where set; the temp folder per user last", () => {
    expect(cacheDirsFor({ env: { XDG_CACHE_HOME: "/x dg" }, home: "/home/ann", tmp: "/tmp", uid: 1000, path: posix })).toEqual(["/x dg/gllam", "/tmp/gllam-1000"]);
    expect(cacheDirsFor({ env: {}, home: "", tmp: "/tmp", uid: 0, path: posix })).toEqual(["/tmp/gllam-0"]);
  });
});

test("target names: Windows is windows-x64, as Bun's compile targets say", () => {
  expect(targetName("win32", "x64")).toBe("windows-x64");
  expect(targetName("darwin", "arm64")).toBe("darwin-arm64");
  expect(Object.keys(VEC_TARGETS).sort()).toEqual(["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64", "windows-x64"]);
});
