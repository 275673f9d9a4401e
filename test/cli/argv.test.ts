import { describe, expect, test } from "bun:test";
import { findUnknownFlag, normalizeArgv, withDefaultFlags } from "../../src/cli/argv.ts";

describe("normalizeArgv", () => {
  test.each([
    [["-seed"], ["seed"]],
    [["--seed", "--db", "x.db"], ["seed", "--db", "x.db"]],
    [["--db", "x.db", "-seed"], ["seed", "--db", "x.db"]],
    [["sleep", "--seed", "7", "--db", "x.db"], ["sleep", "--seed", "7", "--db", "x.db"]],
    [["--db", "x.db", "sleep", "--seed", "7"], ["sleep", "--db", "x.db", "--seed", "7"]],
    [["--recall", "how to deploy caddy", "--entity", "caddy"], ["recall", "how to deploy caddy", "--entity", "caddy"]],
    [["--embeddings-server", "http://h:8080", "--recall", "web server", "-entity", "caddy"], ["recall", "web server", "--embeddings-server", "http://h:8080", "--entity", "caddy"]],
    [["--recall=web server"], ["recall", "web server"]],
    [["--db", "x.db", "recall", "q"], ["recall", "q", "--db", "x.db"]],
    [["--db", "x.db", "fact", "add", "A", "rel", "B", "--caveat", "c"], ["fact", "add", "A", "rel", "B", "--db", "x.db", "--caveat", "c"]],
    [["--debug", "stats"], ["stats", "--debug"]],
    [["--embedder", "static", "seed"], ["seed", "--embedder", "static"]],
    [["stats", "--db", "x.db"], ["stats", "--db", "x.db"]],
    [["--help"], ["--help"]],
    [[], []],
  ])("%j -> %j", (input, expected) => expect(normalizeArgv(input)).toEqual(expected));
});

describe("findUnknownFlag", () => {
  const specs = [
    { name: "db", type: "string" },
    { name: "json", type: "boolean" },
    { name: "k", type: "string" },
    { name: "embeddings-server", type: "string" },
    { name: "asOf", type: "string" },
  ];
  test.each([
    [["q", "--db", "x.db", "--json"], undefined],
    [["q", "--db=x.db", "-k", "3"], undefined],
    [["q", "--no-json"], undefined],
    [["q", "--as-of", "2024-01-01"], undefined],
    [["q", "--db", "--jsn"], undefined], // --jsn is the value of --db
    [["q", "--jsn"], "--jsn"],
    [["q", "--bogus=1"], "--bogus"],
    [["q", "--", "--anything"], undefined],
    [["q", "-k", "-1"], undefined],
  ])("%j -> %s", (args, expected) => expect(findUnknownFlag(args, specs)).toBe(expected));
});

describe("withDefaultFlags", () => {
  const declared = (flag: string) => ["--db", "--embedder", "--debug"].includes(flag);
  const defaults: [string, string?][] = [["--db", "start.db"], ["--embedder", "static"], ["--debug"], ["--config", "c.json"]];
  test.each([
    [["stats"], ["stats", "--db", "start.db", "--embedder", "static", "--debug"]],
    [["recall", "q", "--db", "other.db"], ["recall", "q", "--db", "other.db", "--embedder", "static", "--debug"]],
    [["recall", "q", "--db=other.db", "--debug"], ["recall", "q", "--db=other.db", "--debug", "--embedder", "static"]],
    [["recall", "--", "--db"], ["recall", "--db", "start.db", "--embedder", "static", "--debug", "--", "--db"]],
  ])("%j", (args, expected) => expect(withDefaultFlags(args, defaults, declared)).toEqual(expected));
});
