/**
 * Memory outside JavaScript's heap, for the int8 scan's kept chunks (int8-scan.ts): malloc'd
 * through bun:ffi and reached only by address, copied to and from the kernel's WebAssembly memory by
 * memcpy. Kept in the kernel's own memory (or any ArrayBuffer), 64 MiB of chunks made
 * JavaScriptCore size its heap to them and let ~4x that of garbage pile up between collections
 * (+300 MB of the bench's peak RSS at 1M); memory it does not see leaves its collections as they were.
 * Undefined where libc cannot be opened: the scan then reads every chunk, as before.
 */
import { dlopen, FFIType, type Pointer } from "bun:ffi";

export type NativeSlab = {
  /** The slab's address. */
  base: number;
  /** Copies `bytes` bytes from one address to another (memcpy). */
  copy(to: number, from: number, bytes: number): void;
};

const LIBC: Partial<Record<NodeJS.Platform, string>> = { linux: "libc.so.6", darwin: "libc.dylib" };

/** A slab of `bytes` (untouched, so not resident, until written), or undefined. */
export function openNativeSlab(bytes: number): NativeSlab | undefined {
  const path = LIBC[process.platform];
  if (!path) return undefined;
  try {
    const { symbols } = dlopen(path, {
      malloc: { args: [FFIType.u64], returns: FFIType.ptr },
      memcpy: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64], returns: FFIType.ptr },
    });
    const base = symbols.malloc(bytes);
    if (!base) return undefined;
    return { base: Number(base), copy: (to, from, n) => void symbols.memcpy(to as Pointer, from as Pointer, n) };
  } catch {
    return undefined;
  }
}
