import { describe, expect, test } from "bun:test";
import { useGraphs } from "./fixtures.ts";

const graph = useGraphs();

describe("sources", () => {
  test("an entry without text is not judged for coherence: 0, no text", async () => {
    const gllam = await graph([]);
    const silent = gllam.attributeContainerEntryToSource("slack", "bob", "Bob", "");
    expect(silent.breakdown.coherence).toMatchObject({ delta: 0, why: "no text" });
    expect(silent.trustWeight).toBe(600);
    const noisy = gllam.attributeContainerEntryToSource("slack", "bob", "Bob", "auth-svc has_state healthy");
    expect(noisy.breakdown.coherence.verdict).toBe("gibberish"); // why the CLI must not invent a text
    gllam.close();
  });

  test("every spelling of a document type is one container with the table's weight", async () => {
    const gllam = await graph([]);
    const seedSpelling = gllam.attributeContainerEntryToSource("Merged Pull Request", "ci-bot", "", "", undefined, { role: "System CI/CD" });
    const tableKey = gllam.attributeContainerEntryToSource("merged_pr", "ci-bot", "", "");
    expect(seedSpelling.sourceId).toBe(tableKey.sourceId);
    expect(seedSpelling.trustWeight).toBe(950);
    const row = gllam.dbRO().query("SELECT doc_type AS docType, w_doc_type AS w FROM sources WHERE id = ?").get(seedSpelling.sourceId);
    expect(row).toEqual({ docType: "merged_pr", w: 800 });
    gllam.close();
  });
});
