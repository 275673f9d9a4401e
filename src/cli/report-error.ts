import { describeError, GllamError } from "../engine/errors.ts";

export function usageError(message: string): GllamError {
  return new GllamError("E_USAGE", `${message} (see \`gllam --help\`)`);
}

/** Prints an error as one line (`gllam: what and where [E_CODE]`, plus the stack with --debug); returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  if (error instanceof Error && error.name === "CLIError") error = usageError(error.message);
  if (error instanceof GllamError) {
    console.error(`gllam: ${error.message} [${error.code}]`);
  } else {
    console.error(`gllam: unexpected error: ${describeError(error)}${debug ? "" : " (--debug shows the stack trace)"}`);
  }
  if (debug && error instanceof Error && error.stack) console.error(error.stack);
  return error instanceof GllamError && error.code === "E_USAGE" ? 2 : 1;
}
