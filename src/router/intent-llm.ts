/**
 * The FAST LLM's refinement of the rule-based intents: the rules answer first (microseconds, always),
 * the model sees their answer and may add or remove intents ("what's the story behind the outage"
 * is causal without "why"). A model that fails or answers nothing valid leaves the rules' answer,
 * and the result says which was used and why.
 */
import * as v from "valibot";
import { describeError } from "../engine/errors.ts";
import type { LlmClient } from "../llm/client.ts";
import { INTENTS, type QueryIntent } from "./intent.ts";

export type IntentClassifier = { name: string; refine(query: string, rules: QueryIntent): Promise<QueryIntent> };

/** Who classified: "rules", or the model ("llm:small"); `error` when the model failed and the rules answered. */
export type IntentSource = { by: string; error?: string };

const IntentVerdictSchema = v.object({ intents: v.pipe(v.array(v.picklist(INTENTS)), v.minLength(1)) });

const INTENT_GUIDE = `You classify a question asked of a memory of conversations and facts: which kinds of memory it needs. Kinds:
- factual: a plain fact about something
- temporal: when, how long, the order of events, dates
- procedural: how to do something, steps, recipes
- comparison: comparing or choosing between things
- causal: why, causes, reasons
- verification: checking whether a claim is true
- recap: what was discussed or said
- relation: how things or people are related or connected
Rule-based guesses are given; keep those that are right, drop the wrong ones, add what they miss. List the kinds in "intents".`;

export function createLlmIntentClassifier(client: LlmClient): IntentClassifier {
  return {
    name: `llm:${client.endpoint.model}`,
    refine: async (query, rules) => {
      const verdict = await client.structured(
        IntentVerdictSchema,
        [
          { role: "system", content: INTENT_GUIDE },
          { role: "user", content: `Question: ${query}\nRule-based guesses: ${rules.intents.join(", ")}` },
        ],
        `intent of "${query.slice(0, 60)}"`,
        "intent_verdict",
      );
      return { ...rules, intents: INTENTS.filter((intent) => verdict.intents.includes(intent)) };
    },
  };
}

/** The rules' intents refined by the classifier when there is one; on failure the rules', saying why. */
export async function refineIntent(query: string, rules: QueryIntent, classifier: IntentClassifier | undefined): Promise<{ intent: QueryIntent; source: IntentSource }> {
  if (!classifier) return { intent: rules, source: { by: "rules" } };
  try {
    return { intent: await classifier.refine(query, rules), source: { by: classifier.name } };
  } catch (error) {
    return { intent: rules, source: { by: "rules", error: `intent classifier ${classifier.name} failed: ${describeError(error)}` } };
  }
}
