import { ptr } from "bun:ffi";
import { describe, expect, test } from "bun:test";
import { openNativeSlab } from "../../src/episodic/native-slab.ts";

describe("native slab", () => {
  test("holds what is copied in and gives it back, at any offset", () => {
    const slab = openNativeSlab(1024);
    // Only where libc is known (Linux, macOS); elsewhere the scan keeps nothing and says so by undefined.
    if (!slab) return expect(["linux", "darwin"]).not.toContain(process.platform);
    const source = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256);
    const back = new Uint8Array(300);
    slab.copy(slab.base + 100, Number(ptr(source)), 300);
    slab.copy(Number(ptr(back)), slab.base + 100, 300);
    expect(back).toEqual(source);
  });
});
