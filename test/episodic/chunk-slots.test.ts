import { describe, expect, test } from "bun:test";
import { ChunkSlots } from "../../src/episodic/chunk-slots.ts";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("ChunkSlots", () => {
  test("a chunk is found while its validity and rowids are unchanged, and dropped (its slots freed) once they change", () => {
    const slots = new ChunkSlots(4);
    const kept = slots.keep("a", 2, 10, bytes(1), bytes(1, 2));
    expect(kept!.slots).toHaveLength(2);
    expect(slots.find("a", bytes(1), bytes(1, 2))).toBe(kept);
    expect(slots.find("a", bytes(3), bytes(1, 2))).toBeUndefined();
    expect(slots.size).toBe(0);
    // Its two slots are free again: four one-slot chunks fit without evicting anything.
    for (const key of ["b", "c", "d", "e"]) slots.keep(key, 1, 5, bytes(1), bytes(key.charCodeAt(0)));
    expect(slots.size).toBe(4);
    expect(slots.find("b", bytes(1), bytes(1, 9))).toBeUndefined();
  });

  test("the least recently used chunks give up their slots, a found chunk counting as used; distinct slots throughout", () => {
    const slots = new ChunkSlots(3);
    slots.keep("a", 1, 1, bytes(0), bytes(0));
    slots.keep("b", 1, 1, bytes(0), bytes(0));
    slots.keep("c", 1, 1, bytes(0), bytes(0));
    expect(slots.find("a", bytes(0), bytes(0))).toBeDefined();
    const d = slots.keep("d", 2, 1, bytes(0), bytes(0))!;
    expect(slots.find("b", bytes(0), bytes(0))).toBeUndefined();
    expect(slots.find("c", bytes(0), bytes(0))).toBeUndefined();
    const a = slots.find("a", bytes(0), bytes(0))!;
    expect(new Set([...a.slots, ...d.slots]).size).toBe(3);
    expect(slots.keep("e", 4, 1, bytes(0), bytes(0))).toBeUndefined();
    // Kept again under the same key: the old slots are reused, nothing else is evicted.
    slots.keep("a", 1, 2, bytes(1), bytes(1));
    expect(slots.find("d", bytes(0), bytes(0))).toBe(d);
    expect(slots.find("a", bytes(1), bytes(1))!.count).toBe(2);
  });
});
