/** Two views byte for byte (a memcmp; the same view at once): centroids on the writer's thread, kept chunks' rows in a scan. */
export const sameBytes = (a: ArrayBufferView, b: ArrayBufferView): boolean =>
  a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
