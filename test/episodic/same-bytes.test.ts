import { expect, test } from "bun:test";
import { sameBytes } from "../../src/episodic/same-bytes.ts";

const backing = new Uint8Array([1, 2, 3, 1, 2, 3, 9]);
const floats = Float32Array.of(0.5, -2);

test.each([
  ["the same view", backing, backing, true],
  ["equal bytes in other buffers", Uint8Array.of(1, 2, 3), Uint8Array.of(1, 2, 3), true],
  ["views at other offsets of one buffer", backing.subarray(0, 3), backing.subarray(3, 6), true],
  ["one byte apart", backing.subarray(0, 3), backing.subarray(4, 7), false],
  ["a prefix", backing.subarray(0, 3), backing.subarray(0, 4), false],
  ["floats and their bytes", floats, new Uint8Array(floats.buffer), true],
  ["floats that differ in their last bit", floats, Float32Array.of(0.5, -2.0000002), false],
] as const)("%s: %p", (_, a, b, expected) => expect(sameBytes(a, b)).toBe(expected));
