import { describe, expect, test } from "bun:test";
import { asksForList, classifyIntent, detectEntities, queryPhrases, type Intent } from "../../src/router/intent.ts";

describe("classifyIntent", () => {
  test.each<[string, Intent[]]>([
    ["What is Caroline's job?", ["factual"]],
    ["Where does Bo live", ["factual"]],
    ["When did Melanie paint a sunrise?", ["temporal"]],
    ["What did Ann do last May?", ["temporal"]],
    ["What happened on 2023-05-08?", ["temporal"]],
    ["What did we do two weeks ago?", ["temporal"]],
    ["Where was Bo in 2021", ["temporal"]],
    ["How long has Bo been in Paris?", ["temporal"]],
    ["How do I deploy caddy?", ["procedural"]],
    ["how to rotate the certificates", ["procedural"]],
    ["What are the steps to restore a backup?", ["procedural"]],
    ["Why did the deploy fail?", ["causal"]],
    ["Is it true that Caddy binds to Tailscale?", ["verification"]],
    ["What did we discuss about the budget?", ["recap"]],
    ["Compare Postgres and SQLite", ["comparison"]],
    ["Which is better, vim or emacs?", ["comparison"]],
    ["How is Caddy related to Prometheus?", ["relation"]],
    ["What do Ann and Bo have in common?", ["relation"]],
    ["Why did Ann move before the wedding?", ["causal", "temporal"]],
    ["Caddy and Tailscale", ["relation"]],
    ["caddy certificates", ["recap"]],
  ])("%s -> %j", (query, intents) => {
    expect(classifyIntent(query).intents).toEqual(intents);
  });

  test("the opening question word is kept", () => {
    expect(classifyIntent("When did it start?").interrogative).toBe("when");
    expect(classifyIntent("caddy").interrogative).toBeUndefined();
  });
});

describe("detectEntities", () => {
  test.each<[string, string[]]>([
    ["What did Caroline say about New York City?", ["Caroline", "New York City"]],
    ["When did Melanie's son visit?", ["Melanie"]],
    ['What is "the red book" about?', ["the red book"]],
    ["Did Ann read 'Dune' twice?", ["Dune", "Ann"]],
    ["What are Ann's cat and Bo's dog called?", ["Ann", "Bo"]],
    ["Is it true that Caddy binds to Tailscale?", ["Caddy", "Tailscale"]],
    ["What happened in May 2023?", []],
    ["How do I deploy caddy?", []],
    ["Caddy, Grafana and Gitea", ["Caddy", "Grafana", "Gitea"]],
  ])("%s -> %j", (query, entities) => {
    expect(detectEntities(query)).toEqual(entities);
  });
});

test("queryPhrases: longest runs first, runs of stop words left out", () => {
  expect(queryPhrases("how do I deploy new york caddy?")).toEqual([
    "do I deploy",
    "I deploy new",
    "deploy new york",
    "new york caddy",
    "I deploy",
    "deploy new",
    "new york",
    "york caddy",
    "deploy",
    "new",
    "york",
    "caddy",
  ]);
});

test("asksForList: what/which + a plural and a verb, or what kinds of", () => {
  for (const question of ["What activities does Melanie partake in?", "Which European countries has Maria been to?", "What martial arts has John done?", "What kind of art does Caroline make?", "what types of pottery have they made?", "What symbols are important to her?"]) {
    expect([question, asksForList(question)]).toEqual([question, true]);
  }
  for (const question of ["What is Caroline's identity?", "When did Ann go to Lisbon?", "What does Melanie do to destress?", "How many children does she have?", "Is it true that caddy binds to tailscale?", "What was the name of his dog?"]) {
    expect([question, asksForList(question)]).toEqual([question, false]);
  }
});
