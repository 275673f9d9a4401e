import { afterEach } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A stand-in that speaks Fast Downward's protocol (no Fast Downward can be installed here): driver
 * options, --plan-file FILE, the domain and problem paths, component options. It records --alias and
 * --search in NAME.args, checks both files exist, then runs `body` with $plan, $1 (domain) and $2
 * (problem) set.
 */
export function writeFastDownwardStandIn(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!/bin/sh
plan=""; files=""
while [ $# -gt 0 ]; do
  case "$1" in
    --plan-file) plan="$2"; shift 2 ;;
    --alias|--search) echo "$1 $2" >> "${path}.args"; shift 2 ;;
    *) files="$files $1"; shift ;;
  esac
done
set -- $files
[ -f "$1" ] && [ -f "$2" ] || { echo "missing input files" >&2; exit 2; }
${body}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/**
 * A stand-in whose search is a real one: `gllam plan` (the native planner, a separate process) on
 * the files it was given; its "no plan" (exit 1) becomes Fast Downward's "proved unsolvable" (11).
 */
export function writeNativeBehindFastDownward(dir: string): string {
  const gllam = join(import.meta.dir, "../../src/cli/main.ts");
  return writeFastDownwardStandIn(dir, "native-fd.sh", `"${process.execPath}" "${gllam}" plan "$1" "$2" --out "$plan"; code=$?; [ $code -eq 1 ] && exit 11; exit $code`);
}

/** Puts $FAST_DOWNWARD back after each test of the describe block that calls it (its tests point it at stand-ins). */
export function restoreFastDownwardAfterEach(): void {
  const saved = process.env.FAST_DOWNWARD;
  afterEach(() => {
    if (saved === undefined) delete process.env.FAST_DOWNWARD;
    else process.env.FAST_DOWNWARD = saved;
  });
}
