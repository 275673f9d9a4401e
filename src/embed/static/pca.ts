/**
 * Principal directions of a set of rows, to shrink the static table (model2vec does the same):
 * the eigenvectors of the rows' second-moment matrix (uncentred: the common direction is kept,
 * as the model's own vectors keep it) by cyclic Jacobi rotations, largest eigenvalue first.
 * Deterministic: fixed order of every sum and rotation. Pure.
 */

/** Σ x xᵀ over the rows, as a dense dims x dims matrix. */
function secondMoment(rows: Float32Array[], dims: number): Float64Array {
  const m = new Float64Array(dims * dims);
  for (const row of rows) {
    for (let i = 0; i < dims; i++) {
      const xi = row[i]!;
      if (xi === 0) continue;
      const at = i * dims;
      for (let j = i; j < dims; j++) m[at + j]! += xi * row[j]!;
    }
  }
  for (let i = 0; i < dims; i++) for (let j = 0; j < i; j++) m[i * dims + j] = m[j * dims + i]!;
  return m;
}

/** Eigenvalues and eigenvectors (columns of `vectors`) of a symmetric n x n matrix. */
export function symmetricEigen(matrix: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const x = a[i * n + j]! ** 2;
        total += x;
        if (i !== j) off += x;
      }
    }
    // Converged to well below float32 precision, which is all the table keeps.
    if (off <= 1e-16 * total) break;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (apq === 0) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: n }, (_, i) => a[i * n + i]!), vectors: v };
}

/** The rows projected on their `keep` principal directions. */
export function projectOnPrincipalDirections(rows: Float32Array[], dims: number, keep: number): Float32Array[] {
  const { values, vectors } = symmetricEigen(secondMoment(rows, dims), dims);
  const order = [...values.keys()].sort((x, y) => values[y]! - values[x]! || x - y).slice(0, keep);
  return rows.map((row) => {
    const out = new Float32Array(keep);
    order.forEach((column, k) => {
      let sum = 0;
      for (let i = 0; i < dims; i++) sum += row[i]! * vectors[i * dims + column]!;
      out[k] = sum;
    });
    return out;
  });
}
