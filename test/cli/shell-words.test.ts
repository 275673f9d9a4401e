import { describe, expect, test } from "bun:test";
import { splitCommandLine } from "../../src/cli/shell-words.ts";
import { expectGllamError } from "../helpers.ts";

describe("splitCommandLine", () => {
  test.each([
    ["recall web server", ["recall", "web", "server"]],
    ["  stats   --json  ", ["stats", "--json"]],
    [`fact add Caddy binds_to Tailscale --caveat "Must use the FQDN"`, ["fact", "add", "Caddy", "binds_to", "Tailscale", "--caveat", "Must use the FQDN"]],
    [`recall 'how to deploy caddy'`, ["recall", "how to deploy caddy"]],
    [`a "say \\"hi\\" \\\\ \\$HOME \\x"`, ["a", 'say "hi" \\ $HOME \\x']],
    [`a 'no \\escapes "here"'`, ["a", 'no \\escapes "here"']],
    [`a b\\ c d\\'e`, ["a", "b c", "d'e"]],
    [`a "" ''`, ["a", "", ""]],
    [`pre"mid"'post' x`, ["premidpost", "x"]],
    [`a $HOME *.jsonl ~ ; b`, ["a", "$HOME", "*.jsonl", "~", ";", "b"]],
    ["", []],
  ])("%s", (line, words) => expect(splitCommandLine(line)).toEqual(words));

  test.each([
    [`fact add 'Caddy`, /unterminated single quote at column 10/],
    [`recall "web server`, /unterminated double quote at column 8/],
  ])("%s is refused, naming the quote", async (line, message) => {
    await expectGllamError(() => splitCommandLine(line), "E_USAGE", message);
  });
});
