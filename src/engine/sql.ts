/** A LIKE pattern matching `prefix` literally (for `LIKE ? ESCAPE '\'`): %, _ and \ in it lose their meaning. */
export const escapeLike = (prefix: string): string => prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
