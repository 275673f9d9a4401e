/**
 * Keys of the config's tables (document types, handles, roles, repositories) are snake_case, and
 * every spelling of a key is compared in that form: "Tech Lead" and "@Carol_Lead" find tech_lead
 * and carol_lead, in a lookup and when a user file overrides a shipped entry.
 */
export function normalizeKey(value: string): string {
  return value
    .trim()
    .replace(/^@/, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** A table's entry by its own key only (never Object.prototype's: a handle "constructor" is just unknown). */
export const ownEntry = <T>(table: Record<string, T>, key: string): T | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);
