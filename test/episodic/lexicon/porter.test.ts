import { describe, expect, test } from "bun:test";
import { porterStem } from "../../../src/episodic/lexicon/porter.ts";
import { lexiconTerms } from "../../../src/episodic/lexicon/terms.ts";

// Porter's own examples (the 1980 paper), one or two per rule, and words the conversations use.
const STEMS: [string, string][] = [
  ["caresses", "caress"], ["ponies", "poni"], ["ties", "ti"], ["caress", "caress"], ["cats", "cat"],
  ["feed", "feed"], ["agreed", "agre"], ["plastered", "plaster"], ["bled", "bled"], ["motoring", "motor"], ["sing", "sing"],
  ["conflated", "conflat"], ["troubled", "troubl"], ["sized", "size"], ["hopping", "hop"], ["tanned", "tan"], ["falling", "fall"],
  ["hissing", "hiss"], ["fizzed", "fizz"], ["failing", "fail"], ["filing", "file"], ["happy", "happi"], ["sky", "sky"],
  ["relational", "relat"], ["conditional", "condit"], ["rational", "ration"], ["valenci", "valenc"], ["digitizer", "digit"],
  ["conformabli", "conform"], ["radicalli", "radic"], ["differentli", "differ"], ["vileli", "vile"], ["analogousli", "analog"],
  ["vietnamization", "vietnam"], ["predication", "predic"], ["operator", "oper"], ["feudalism", "feudal"], ["decisiveness", "decis"],
  ["hopefulness", "hope"], ["callousness", "callous"], ["formaliti", "formal"], ["sensitiviti", "sensit"], ["sensibiliti", "sensibl"],
  ["triplicate", "triplic"], ["formative", "form"], ["formalize", "formal"], ["electriciti", "electr"], ["electrical", "electr"],
  ["hopeful", "hope"], ["goodness", "good"], ["revival", "reviv"], ["allowance", "allow"], ["inference", "infer"], ["airliner", "airlin"],
  ["gyroscopic", "gyroscop"], ["adjustable", "adjust"], ["defensible", "defens"], ["irritant", "irrit"], ["replacement", "replac"],
  ["adjustment", "adjust"], ["dependent", "depend"], ["adoption", "adopt"], ["homologou", "homolog"], ["communism", "commun"],
  ["activate", "activ"], ["angulariti", "angular"], ["homologous", "homolog"], ["effective", "effect"], ["bowdlerize", "bowdler"],
  ["probate", "probat"], ["rate", "rate"], ["cease", "ceas"], ["controll", "control"], ["roll", "roll"],
  ["hiking", "hike"], ["activities", "activ"], ["generalizations", "gener"], ["oscillators", "oscil"], ["go", "go"], ["3d", "3d"],
];

describe("porterStem", () => {
  test.each(STEMS)("%s -> %s", (word, stem) => expect(porterStem(word)).toBe(stem));
});

describe("lexiconTerms", () => {
  test.each([
    ["Hiking, hikes and HIKED!", ["hike", "hike", "and", "hike"]],
    ["naïve café-owner", ["naiv", "cafe", "owner"]],
    ["e-mail me at 9:30", ["e", "mail", "me", "at", "9", "30"]],
    ["¿?!", []],
  ])("%j", (text, terms) => expect(lexiconTerms(text)).toEqual(terms));
});
