/**
 * Paths inside a compiled executable (`bun build --compile`): Bun serves its embedded files from a
 * virtual root, `/$bunfs/root` on Linux and macOS, `B:/~BUN/root` on Windows (the form the
 * executable records its files under; Windows APIs may hand it back with backslashes). dlopen and
 * other processes cannot read them.
 */

function embeddedRoot(platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? "B:/~BUN/root" : "/$bunfs/root";
}

/** A file embedded in the executable, by its path below the embedded root ("embed/embed-worker.js"). */
export function embeddedPath(relative: string, platform: NodeJS.Platform = process.platform): string {
  return `${embeddedRoot(platform)}/${relative}`;
}

/** Whether a path or file URL points inside the executable (on any platform: the markers cannot clash). */
export function isEmbeddedPath(pathOrUrl: string): boolean {
  return /(^|\/)\$bunfs\/|(^|[/\\])B:[/\\]~BUN[/\\]/i.test(pathOrUrl);
}
