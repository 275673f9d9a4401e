import { describe, expect, test } from "bun:test";
import { projectOnPrincipalDirections, symmetricEigen } from "../../../src/embed/static/pca.ts";

const n = 6;
let seed = 7;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
const rows = Array.from({ length: 40 }, () => Float32Array.from({ length: n }, random));

describe("principal directions", () => {
  test("Jacobi rotations give orthonormal eigenvectors of a symmetric matrix", () => {
    const m = new Float64Array(n * n);
    for (const row of rows) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m[i * n + j]! += row[i]! * row[j]!;
    const { values, vectors } = symmetricEigen(m, n);
    for (let c = 0; c < n; c++) {
      for (let i = 0; i < n; i++) {
        let mv = 0;
        for (let k = 0; k < n; k++) mv += m[i * n + k]! * vectors[k * n + c]!;
        expect(mv).toBeCloseTo(values[c]! * vectors[i * n + c]!, 6);
      }
      for (let d = 0; d < n; d++) {
        let dot = 0;
        for (let k = 0; k < n; k++) dot += vectors[k * n + c]! * vectors[k * n + d]!;
        expect(dot).toBeCloseTo(c === d ? 1 : 0, 8);
      }
    }
  });

  test("keeping every direction is a rotation: dot products survive; fewer keep the largest share", () => {
    const all = projectOnPrincipalDirections(rows, n, n);
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    expect(dot(all[0]!, all[1]!)).toBeCloseTo(dot(rows[0]!, rows[1]!), 4);
    const two = projectOnPrincipalDirections(rows, n, 2);
    const energy = (list: Float32Array[]) => list.reduce((s, row) => s + dot(row, row), 0);
    // The first two directions hold at least 2/6 of the energy (they hold the most).
    expect(energy(two) / energy(rows)).toBeGreaterThan(2 / n);
    expect(two[0]!.length).toBe(2);
  });
});
