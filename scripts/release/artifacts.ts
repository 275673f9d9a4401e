/**
 * The release's archives and checksum list, written byte for byte by these functions so that two
 * releases of a commit are identical: entries in name order, the given mtime, owner 0:0 with no
 * names, gzip without a timestamp (zlib writes mtime 0), zip with the DOS time of the given date.
 */
import { deflateRawSync, gzipSync } from "node:zlib";

export type ArchiveEntry = { name: string; bytes: Uint8Array; mode: number };

const BLOCK = 512;
const encoder = new TextEncoder();

const byName = <T extends { name: string }>(items: T[]): T[] => [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** A field of `width` bytes holding an octal number, zero-padded, NUL-terminated. */
function octal(value: number, width: number): string {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new RangeError(`${value} does not fit a tar field of ${width} bytes`);
  return `${digits.padStart(width - 1, "0")}\0`;
}

/** One ustar header (POSIX.1-1988): a regular file owned by 0:0. */
function tarHeader(entry: ArchiveEntry, mtime: Date): Uint8Array {
  const name = encoder.encode(entry.name);
  if (name.length > 100) throw new RangeError(`tar entry name over 100 bytes: ${entry.name}`);
  const header = new Uint8Array(BLOCK);
  const put = (offset: number, text: string | Uint8Array) => header.set(typeof text === "string" ? encoder.encode(text) : text, offset);
  put(0, name);
  put(100, octal(entry.mode, 8));
  put(108, octal(0, 8)); // uid
  put(116, octal(0, 8)); // gid
  put(124, octal(entry.bytes.length, 12));
  put(136, octal(Math.floor(mtime.getTime() / 1000), 12));
  put(148, "        "); // the checksum counts its own field as spaces
  put(156, "0"); // regular file
  put(257, "ustar\0");
  put(263, "00");
  const sum = header.reduce((total, byte) => total + byte, 0);
  put(148, `${sum.toString(8).padStart(6, "0")}\0 `);
  return header;
}

/** A gzipped tar of the entries. */
export function tarGz(entries: ArchiveEntry[], mtime: Date): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const entry of byName(entries)) {
    parts.push(tarHeader(entry, mtime), entry.bytes, new Uint8Array((BLOCK - (entry.bytes.length % BLOCK)) % BLOCK));
  }
  parts.push(new Uint8Array(2 * BLOCK)); // end of archive
  return gzipSync(Buffer.concat(parts));
}

/** MS-DOS date and time (2-second steps, from 1980), read as UTC. */
function dosDateTime(date: Date): { time: number; day: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1),
    day: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

/** A zip of the entries, deflated, with Unix modes (so `unzip` restores the executable bit). */
export function zip(entries: ArchiveEntry[], mtime: Date): Uint8Array {
  const { time, day } = dosDateTime(mtime);
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of byName(entries)) {
    const name = encoder.encode(entry.name);
    const data = deflateRawSync(entry.bytes);
    const crc = Bun.hash.crc32(entry.bytes);
    // The fields local and central headers share: version needed 2.0, flags 0, deflate, time, date, crc, sizes, name length.
    const common = (view: DataView, at: number) => {
      [20, 0, 8, time, day].forEach((value, i) => view.setUint16(at + 2 * i, value, true));
      view.setUint32(at + 10, crc, true);
      view.setUint32(at + 14, data.length, true);
      view.setUint32(at + 18, entry.bytes.length, true);
      view.setUint16(at + 22, name.length, true);
    };
    const local = new Uint8Array(30 + name.length);
    const localView = new DataView(local.buffer);
    localView.setUint32(0, 0x04034b50, true);
    common(localView, 4);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.length);
    const centralView = new DataView(central.buffer);
    centralView.setUint32(0, 0x02014b50, true);
    centralView.setUint16(4, (3 << 8) | 20, true); // made by Unix, zip 2.0: the external attributes hold the mode
    common(centralView, 6);
    centralView.setUint32(38, ((0o100000 | entry.mode) << 16) >>> 0, true);
    centralView.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, data);
    centrals.push(central);
    offset += local.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = new Uint8Array(22);
  const endView = new DataView(end.buffer);
  endView.setUint32(0, 0x06054b50, true);
  endView.setUint16(8, centrals.length, true);
  endView.setUint16(10, centrals.length, true);
  endView.setUint32(12, directory.length, true);
  endView.setUint32(16, offset, true);
  return Buffer.concat([...locals, directory, end]);
}

export const sha256 = (bytes: Uint8Array): string => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** SHA256SUMS as sha256sum writes it ("<hex>  <name>", text mode), in name order. */
export function formatChecksums(files: { name: string; sha256: string }[]): string {
  return byName(files)
    .map((file) => `${file.sha256}  ${file.name}\n`)
    .join("");
}
