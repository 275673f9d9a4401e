/**
 * The REPL's prompt: one line of input, drawn like the clack prompts around it, with the history
 * on the up and down arrows (readline's own), and the keys that end it told apart: Enter gives
 * the line, Ctrl-C (or Escape) an interrupt, Ctrl-D on an empty line the end of input.
 */
import { styleText } from "node:util";
import { TextPrompt } from "@clack/core";
import { symbol } from "@clack/prompts";

export type PromptAnswer = { kind: "line"; text: string } | { kind: "interrupt" } | { kind: "eof" };

type Key = { name?: string; ctrl?: boolean } | undefined;

export async function readCommandLine(history: string[], output: NodeJS.WriteStream): Promise<PromptAnswer> {
  let eof = false;
  const prompt = new TextPrompt({
    output,
    render() {
      switch (this.state) {
        case "submit":
          return `${symbol("submit")}  ${styleText("dim", this.userInput)}`;
        case "cancel":
          return `${symbol("cancel")}  ${styleText(["strikethrough", "dim"], this.userInput)}`;
        default:
          return `${symbol("active")}  ${this.userInputWithCursor}`;
      }
    },
  });
  prompt.on("key", (_char: string | undefined, key: Key) => {
    if (key?.ctrl && key.name === "d" && prompt.userInput === "") {
      eof = true;
      prompt.state = "cancel";
    }
  });
  const answer = prompt.prompt();
  // readline is created by prompt(); its history is what the arrows walk (newest first).
  const rl = (prompt as unknown as { rl?: { history: string[] } }).rl;
  if (rl) rl.history = history;
  const value = await answer;
  if (eof) return { kind: "eof" };
  if (typeof value !== "string") return { kind: "interrupt" };
  return { kind: "line", text: value };
}
