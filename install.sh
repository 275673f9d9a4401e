#!/bin/sh
# Installs the gllam release binary for this machine (Linux or macOS, x86-64 or arm64).
#
#   sh install.sh --base-url URL [--prefix DIR]
#
# URL (or $GLLAM_BASE_URL): where a release's files are (SHA256SUMS and gllam-<os>-<arch>.tar.gz),
# as `bun run release` writes them to dist/release. The archive is checked against SHA256SUMS
# before anything is installed. DIR (or $GLLAM_PREFIX, default ~/.local): gllam goes to DIR/bin.
set -eu

usage="usage: sh install.sh --base-url URL [--prefix DIR] (or GLLAM_BASE_URL, GLLAM_PREFIX)"

fail() {
  printf 'install.sh: %s\n' "$*" >&2
  exit 1
}

base_url=${GLLAM_BASE_URL:-}
prefix=${GLLAM_PREFIX:-}
while [ $# -gt 0 ]; do
  case $1 in
    --base-url) [ $# -ge 2 ] || fail "--base-url needs a URL"; base_url=$2; shift 2 ;;
    --base-url=*) base_url=${1#*=}; shift ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a folder"; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    -h | --help) printf '%s\n' "$usage"; exit 0 ;;
    *) fail "unknown argument $1; $usage" ;;
  esac
done
[ -n "$base_url" ] || fail "no base URL: the folder holding SHA256SUMS and gllam-<os>-<arch>.tar.gz; $usage"
base_url=${base_url%/}
if [ -z "$prefix" ]; then
  [ -n "${HOME:-}" ] || fail "HOME is not set: pass --prefix DIR"
  prefix=$HOME/.local
fi

os=$(uname -s)
arch=$(uname -m)
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN*) fail "on Windows, download gllam-windows-x64.zip from $base_url and check it against SHA256SUMS" ;;
  *) fail "no gllam release for $os (there are releases for Linux and macOS on x86-64 and arm64, and Windows on x86-64)" ;;
esac
case $arch in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) fail "no gllam release for $os on $arch (only x86-64 and arm64)" ;;
esac
# An x86-64 shell under Rosetta on Apple silicon: the native build is the one to use.
if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  arch=arm64
fi
archive=gllam-$os-$arch.tar.gz

download() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "needs curl or wget to download"
  fi
}

sha256_of() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else
    fail "needs sha256sum, shasum or openssl to check the download"
  fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t gllam-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

download "$base_url/SHA256SUMS" "$tmp/SHA256SUMS" || fail "cannot download $base_url/SHA256SUMS"
# sha256sum's format: "<hex>  <name>", or "<hex> *<name>" for files hashed in binary mode.
expected=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/SHA256SUMS")
[ -n "$expected" ] || fail "$base_url/SHA256SUMS lists no $archive"
download "$base_url/$archive" "$tmp/$archive" || fail "cannot download $base_url/$archive"
actual=$(sha256_of "$tmp/$archive")
[ "$actual" = "$expected" ] || fail "$archive does not match SHA256SUMS (expected $expected, got $actual): nothing installed"

mkdir "$tmp/unpacked"
tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || fail "cannot unpack $archive"
[ -f "$tmp/unpacked/gllam" ] || fail "$archive holds no gllam"

bin=$prefix/bin
mkdir -p "$bin" || fail "cannot create $bin"
# Copied beside the target, then renamed: a running gllam is never overwritten in place.
partial=$bin/.gllam.$$.partial
if ! { cp "$tmp/unpacked/gllam" "$partial" && chmod 755 "$partial" && mv -f "$partial" "$bin/gllam"; }; then
  rm -f "$partial"
  fail "cannot write $bin/gllam"
fi

version=$("$bin/gllam" --version 2>/dev/null || true)
printf 'installed %s to %s\n' "${version:-gllam}" "$bin/gllam"
command=$bin/gllam
case ":${PATH:-}:" in
  *":$bin:"*) command=gllam ;;
  *) printf '%s is not on your PATH: add it (export PATH="%s:$%s") or run gllam by its full path\n' "$bin" "$bin" PATH ;;
esac
if [ "$os" = darwin ]; then
  printf 'macOS: gllam needs a SQLite that can load extensions: brew install sqlite (or set GLLAM_SQLITE_LIB to a libsqlite3.dylib)\n'
fi
printf 'next: %s seed && %s recall "how to deploy caddy" --entity caddy\n' "$command" "$command"
