import { expect, test } from "bun:test";
import { readEnv } from "../../src/config/env.ts";

test("reads the seed's variables and treats blank as unset", () => {
  const env = readEnv({ DATABASE_PATH: " ./x.db ", EMBEDDINGS_SERVER: "http://127.0.0.1:8800", FAST_LLM_MODEL: "", UNRELATED: "1" });
  expect(env).toMatchObject({ DATABASE_PATH: "./x.db", EMBEDDINGS_SERVER: "http://127.0.0.1:8800", FAST_LLM_MODEL: undefined });
});

test("a malformed server URL is a config error naming the variable", () => {
  expect(() => readEnv({ EMBEDDINGS_SERVER: "localhost port 8080" })).toThrow(/EMBEDDINGS_SERVER: must be an http\(s\) URL/);
});
