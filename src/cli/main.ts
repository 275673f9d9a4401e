#!/usr/bin/env bun
import { keepFreedMemory } from "./allocator.ts";

// Before the engine is loaded: a long-running command may start this process again (allocator.ts).
keepFreedMemory(process.argv.slice(2));
const { runCli } = await import("./run.ts");
process.exitCode = await runCli(process.argv.slice(2));
