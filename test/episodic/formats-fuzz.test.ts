/**
 * Every ingest parser against 10,000 deterministic mutants of small inputs (slices of the dev files
 * where a format has one, hand-written seeds otherwise): it either refuses an input with a
 * GllamError or gives episodes the schema accepts and the database stores.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import * as v from "valibot";
import { GllamError } from "../../src/engine/errors.ts";
import { openSourceBytes } from "../../src/episodic/formats/read-source.ts";
import type { FormatName } from "../../src/episodic/formats/source.ts";
import { collectSource, type CollectedSource } from "../../src/episodic/ingest.ts";
import { EpisodeInputSchema, MAX_TEXT } from "../../src/memory/types.ts";
import { tinyEmbedder } from "../semantic/fixtures.ts";
import { makeTempDir, openTempGllam } from "../helpers.ts";
import { devDataPath } from "../fuzz/dev-data.ts";
import { locomoTestFile } from "../extraction/locomo-script.ts";
import { createRng, mutateBytes, mutateJson, mutateJsonText, toBytes, type Json, type Rng } from "../fuzz/mutate.ts";

const INPUTS = 10_000;
const dir = makeTempDir();

type Mutant = { bytes: Uint8Array; file: string; format?: FormatName };

/** Why an accepted episode would not be stored as it is, or undefined. */
function flaw(episode: CollectedSource["episodes"][number]): string | undefined {
  const again = v.safeParse(EpisodeInputSchema, episode);
  if (!again.success) return `schema: ${again.issues[0]?.message}`;
  if (JSON.stringify(again.output) !== JSON.stringify(episode)) return "not a fixed point of the schema";
  // What the STRICT table stores as INTEGER.
  if (episode.occurredAt !== undefined && !Number.isSafeInteger(episode.occurredAt)) return `occurredAt ${episode.occurredAt}`;
  if (!Number.isSafeInteger(episode.seq)) return `seq ${episode.seq}`;
  if (!episode.content || episode.content.length > MAX_TEXT) return "content length";
  return undefined;
}

/** Runs the mutants through the parser; returns what happened, with every unexpected failure described. */
async function fuzz(seed: number, mutant: (rng: Rng) => Mutant) {
  const rng = createRng(seed);
  const failures: string[] = [];
  const stored: CollectedSource[] = [];
  let refused = 0;
  let accepted = 0;
  for (let i = 0; i < INPUTS; i++) {
    const input = mutant(rng);
    const preview = JSON.stringify(new TextDecoder().decode(input.bytes.slice(0, 200)));
    let result: CollectedSource;
    try {
      result = collectSource(openSourceBytes(input.bytes, input.file, { format: input.format }), i % 2 === 1);
    } catch (error) {
      if (error instanceof GllamError) refused++;
      else failures.push(`input ${i} (${input.file}): ${String(error)} on ${preview}`);
      continue;
    }
    accepted += result.episodes.length > 0 ? 1 : 0;
    for (const episode of result.episodes) {
      const problem = flaw(episode);
      if (problem) failures.push(`input ${i} (${input.file}): ${problem} on ${preview}`);
    }
    if (result.episodes.length > 0) stored.push(result);
  }
  // Every accepted input goes through the real write path.
  const gllam = await openTempGllam(dir, { embedder: tinyEmbedder, staticEmbedder: null });
  gllam.store.transaction(() => {
    for (const [i, result] of stored.entries()) {
      try {
        gllam.addEpisodes(result.episodes, { sessions: result.sessions });
      } catch (error) {
        failures.push(`stored result ${i}: ${String(error)}`);
      }
    }
  });
  gllam.close();
  return { failures: failures.slice(0, 10), refused, accepted };
}

function expectSound(outcome: Awaited<ReturnType<typeof fuzz>>): void {
  expect(outcome.failures).toEqual([]);
  // The mutants exercise both sides: some are refused, some still give episodes.
  expect(outcome.refused).toBeGreaterThan(INPUTS / 100);
  expect(outcome.accepted).toBeGreaterThan(INPUTS / 100);
}

/** 1-3 byte mutations of one of the seeds (spliced with the others). */
const mutateSeedBytes = (rng: Rng, seeds: Uint8Array[]) => {
  let bytes = rng.pick(seeds);
  for (let i = rng.int(3) + 1; i > 0; i--) bytes = mutateBytes(bytes, rng, seeds);
  return bytes;
};

const JSONL_RECORDS: Json[] = [
  { session_id: "trip", speaker: "Ann", content: "We booked the ferry to Tangier for the 12th.", timestamp: "2024-06-01T10:00:00Z" },
  { session_id: "trip", role: "assistant", text: "Noted: ferry on the 12th.", timestamp: 1714557600.123456 },
  { session: "work", role: "Bob", content: "The report is late again.", seq: 4, metadata: { mood: "tired", tags: ["work", 2] } },
  { content: "No session, no speaker.", time: 1717236000000 },
  { sessionId: "x", name: "Cy", content: "Dates: 8 May 2023.", date: "1:56 pm on 8 May, 2023", occurred_at: null },
];

const MARKDOWN_DOCS = [
  "# Guide\n\nIntro paragraph.\n\n## Install\n\nRun the installer.\n\n```sh\n# not a heading\nmake install\n```\n\n## Use ##\n\nOpen it. Then close it.\n",
  "Plain text without headings.\r\nSecond line.\r\n\r\nAnother paragraph that goes on " + "and on ".repeat(40) + "until it ends.\n",
  "### Deep\n\n#### Deeper\n\n- a list\n- of items\n\n> a quote\n\n# Top again\n\nText.",
];

describe("parser fuzzing (10,000 mutants each): only GllamErrors, and accepted episodes are storable", () => {
  test("JSONL", async () => {
    const seeds = MARKDOWN_DOCS.map(toBytes);
    const outcome = await fuzz(1, (rng) => {
      const lines = Array.from({ length: 1 + rng.int(4) }, () => {
        const record = rng.pick(JSONL_RECORDS);
        return JSON.stringify(rng.chance(0.6) ? mutateJson(record, rng) : record);
      });
      let bytes = toBytes(lines.join(rng.chance(0.9) ? "\n" : "\r\n"));
      if (rng.chance(0.4)) bytes = mutateSeedBytes(rng, [bytes, ...seeds]);
      return { bytes, file: "chat.jsonl" };
    });
    expectSound(outcome);
  });

  test.each([
    ["Markdown", "notes.md", 2],
    ["text", "notes.txt", 3],
  ])("%s", async (_, file, seed) => {
    const seeds = MARKDOWN_DOCS.map(toBytes);
    const outcome = await fuzz(seed, (rng) => ({ bytes: mutateSeedBytes(rng, seeds), file }));
    expectSound(outcome);
  });

  /** Small slices of a dev file, each mutated structurally and sometimes byte by byte. */
  function jsonSlices(path: string, slice: (data: Json[], rng: Rng) => Json): (rng: Rng) => Json {
    const data = JSON.parse(readFileSync(path, "utf8")) as Json[];
    return (rng) => slice(data, rng);
  }
  const cut = (text: Json) => (typeof text === "string" ? text.slice(0, 300) : text);

  /** The dev file, else a generated file of the same shape (where the dev data is not, as on CI). */
  const devOr = (generated: () => Json, ...parts: string[]): string => {
    const dev = devDataPath(...parts);
    if (dev) return dev;
    const file = `${dir}/${parts.join("-")}`;
    writeFileSync(file, JSON.stringify(generated()));
    return file;
  };
  const chat = (n: number, field: "content") => Array.from({ length: n }, (_, t) => ({ role: t % 2 ? "assistant" : "user", [field]: `Turn ${t + 1}: the tram to the harbour leaves at ${7 + t}:15, bring the blue umbrella.` }));

  const locomo = locomoTestFile();
  test("LoCoMo (slices of the dev file, or of a generated one)", async () => {
    const sliceOf = jsonSlices(locomo, (data, rng) => {
      const sample = rng.pick(data) as { sample_id: Json; conversation: Record<string, Json> };
      const keys = Object.keys(sample.conversation).filter((k) => /^session_\d+$/.test(k));
      const key = rng.pick(keys);
      const turns = (sample.conversation[key] as Json[]).slice(0, 1 + rng.int(5)).map((t) => ({ ...(t as Record<string, Json>), text: cut((t as Record<string, Json>).text!) }));
      const conversation = { speaker_a: sample.conversation.speaker_a!, speaker_b: sample.conversation.speaker_b!, [`${key}_date_time`]: sample.conversation[`${key}_date_time`]!, [key]: turns };
      return [{ sample_id: sample.sample_id, conversation }];
    });
    const outcome = await fuzz(4, (rng) => ({ bytes: mutateJsonText(sliceOf(rng), rng), file: "locomo.json", format: rng.chance(0.5) ? "locomo" : undefined }));
    expectSound(outcome);
  });

  const longmemeval = devOr(
    () => [{ question_id: "q1", haystack_session_ids: ["s1", "s2"], haystack_dates: ["2023/05/20 (Sat) 02:21", "2023/05/22 (Mon) 18:40"], haystack_sessions: [chat(6, "content"), chat(5, "content")] }],
    "longmemeval",
    "longmemeval_s_dev.json",
  );
  test("LongMemEval (slices of the dev file, or of a generated one)", async () => {
    const sliceOf = jsonSlices(longmemeval, (data, rng) => {
      const question = rng.pick(data) as Record<string, Json[]>;
      const s = rng.int(question.haystack_sessions!.length);
      const turns = (question.haystack_sessions![s] as Json[]).slice(0, 1 + rng.int(4)).map((t) => ({ ...(t as Record<string, Json>), content: cut((t as Record<string, Json>).content!) }));
      return [{ question_id: question.question_id!, haystack_session_ids: [question.haystack_session_ids![s]!], haystack_dates: [question.haystack_dates![s]!], haystack_sessions: [turns] }];
    });
    const outcome = await fuzz(5, (rng) => ({ bytes: mutateJsonText(sliceOf(rng), rng), file: "lme.json", format: rng.chance(0.5) ? "longmemeval" : undefined }));
    expectSound(outcome);
  });

  const beam = devOr(
    () => [1, 2].map((batch) => ({ batch_number: batch, time_anchor: `March-${10 + batch}-2024`, turns: [chat(4, "content").map((t, i) => ({ ...t, id: i, index: `${batch},${i}` }))] })),
    "beam",
    "100K",
    "1",
    "chat.json",
  );
  test("BEAM (slices of a dev chat, or of a generated one)", async () => {
    const sliceOf = jsonSlices(beam, (data, rng) => {
      const batch = rng.pick(data) as Record<string, Json>;
      const session = rng.pick(batch.turns as Json[][]);
      const turns = session.slice(0, 1 + rng.int(4)).map((t) => ({ ...(t as Record<string, Json>), content: cut((t as Record<string, Json>).content!) }));
      return [{ batch_number: batch.batch_number!, time_anchor: batch.time_anchor!, turns: [turns] }];
    });
    const outcome = await fuzz(6, (rng) => ({ bytes: mutateJsonText(sliceOf(rng), rng), file: "chat.json", format: rng.chance(0.5) ? "beam" : undefined }));
    expectSound(outcome);
  });
});
