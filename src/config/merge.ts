/**
 * How a user's config file overrides the shipped one: JSON Merge Patch (RFC 7396). Objects merge
 * key by key, `null` removes a key (the built-in default, empty for tables and lists, applies
 * again), arrays and scalars replace. Where `keyForm` says so (the config's tables), two keys that
 * differ only in spelling ("Slack", "slack") name the same entry.
 */

export const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The form a key is compared in under `path` (the keys leading to the object). */
export type KeyForm = (path: readonly string[]) => ((key: string) => string) | undefined;

/**
 * Merges `patch` over `base` without touching either. Recursion follows `base`, so a deeply
 * nested patch cannot exhaust the stack: a value with no object under it in `base` is taken as is
 * (and validated by the caller's schema).
 */
export function mergePatch(base: unknown, patch: unknown, keyForm: KeyForm = () => undefined, path: readonly string[] = []): unknown {
  if (!isPlainObject(patch) || !isPlainObject(base)) return patch;
  const form = keyForm(path) ?? ((key: string) => key);
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const matching = Object.keys(base).filter((baseKey) => form(baseKey) === form(key));
    const previous = matching.length > 0 ? base[matching[0]!] : undefined;
    for (const baseKey of matching) delete merged[baseKey];
    // defineProperty: a key "__proto__" stays a key (and is refused by the schema), not a prototype.
    if (value !== null) Object.defineProperty(merged, key, { value: mergePatch(previous, value, keyForm, [...path, key]), enumerable: true, writable: true, configurable: true });
  }
  return merged;
}
