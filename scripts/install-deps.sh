#!/usr/bin/env bash
# install-deps.sh - install what lagscope's lab and tests need on Debian 12.
#
# Installs, only when missing:
#   postgresql  Debian's PostgreSQL 15 server binaries (/usr/lib/postgresql/15/bin),
#               with psql and pgbench
#   util-linux  taskset
#   prometheus  Debian's Prometheus server and promtool, for the exporter's
#               test with a real Prometheus and the alert rules' tests
#   tmux        for the test that drives 'lagscope watch' in a terminal
#   man-db      man, for the packaging test (man lagscope after dpkg -i)
#   chromium    Debian's Chromium, headless, for the test that opens the HTML
#               reports offline
#   postgresql-<major>-pg-wait-sampling
#               the pg_wait_sampling extension for Debian's server, where
#               Debian packages it (15 on Debian 12): the lab loads it for the
#               test of diagnose reading wait events from its history
#
# Safe to run again: when everything is present it installs nothing and needs no
# root. Installing needs root (CI runs as root); it runs `apt-get update` once.
#
# Installing Debian's postgresql package creates and starts a cluster called
# "main". The project's tests start their own disposable clusters and must never
# depend on one that happens to be running, so every cluster this script's install
# started is stopped again (best effort). Clusters that were already running are
# left alone.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

log() { printf 'install-deps: %s\n' "$*"; }
die() {
	printf 'install-deps: error: %s\n' "$*" >&2
	exit 1
}

# server_dir prints the first /usr/lib/postgresql/<major>/bin that holds a
# complete server (postgres, initdb, pg_ctl), newest major first.
server_dir() {
	local dir
	for dir in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -t/ -k5,5nr); do
		if [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
			printf '%s\n' "$dir"
			return 0
		fi
	done
	return 1
}

# has_client NAME: the client tool is in a Debian bin dir or on PATH.
has_client() {
	local dir
	for dir in /usr/lib/postgresql/*/bin; do
		[ -x "$dir/$1" ] && return 0
	done
	command -v "$1" >/dev/null 2>&1
}

# online_clusters prints "VERSION CLUSTER" for every Debian cluster that is running.
online_clusters() {
	command -v pg_lsclusters >/dev/null 2>&1 || return 0
	pg_lsclusters --no-header 2>/dev/null | awk '$4 ~ /^online/ { print $1, $2 }' || true
}

# stop_cluster VERSION NAME, best effort.
stop_cluster() {
	if command -v pg_ctlcluster >/dev/null 2>&1 && pg_ctlcluster "$1" "$2" stop >/dev/null 2>&1; then
		log "stopped Debian's cluster $1/$2 (the install started it; lagscope's tests start their own)"
		return 0
	fi
	if command -v service >/dev/null 2>&1 && service postgresql stop >/dev/null 2>&1; then
		log "stopped the postgresql service (the install started cluster $1/$2)"
		return 0
	fi
	log "warning: could not stop cluster $1/$2; stop it with: pg_ctlcluster $1 $2 stop"
}

packages=()

if dir=$(server_dir); then
	log "PostgreSQL server already installed: $dir ($("$dir/postgres" --version 2>/dev/null || echo 'version unknown'))"
else
	log "PostgreSQL server binaries missing: will install Debian's postgresql package"
	packages+=(postgresql)
fi
if [ ${#packages[@]} -eq 0 ]; then
	for tool in psql pgbench; do
		if has_client "$tool"; then
			log "$tool already installed"
		else
			log "$tool missing: will install Debian's postgresql package"
			packages+=(postgresql)
			break
		fi
	done
fi
# pg_wait_sampling for Debian's server major (the one installed, or 15 that
# the postgresql package brings on Debian 12).
major=15
if dir=$(server_dir); then
	major=$(basename "$(dirname "$dir")")
fi
if [ -e "/usr/lib/postgresql/$major/lib/pg_wait_sampling.so" ]; then
	log "pg_wait_sampling already installed for PostgreSQL $major"
elif [ "$major" = 15 ] || apt-cache show "postgresql-$major-pg-wait-sampling" >/dev/null 2>&1; then
	log "pg_wait_sampling missing: will install postgresql-$major-pg-wait-sampling"
	packages+=("postgresql-$major-pg-wait-sampling")
else
	log "no Debian package of pg_wait_sampling for PostgreSQL $major: its test will be skipped"
fi
if command -v taskset >/dev/null 2>&1; then
	log "taskset already installed: $(command -v taskset)"
else
	log "taskset missing: will install util-linux"
	packages+=(util-linux)
fi

for tool in prometheus:prometheus promtool:prometheus tmux:tmux chromium:chromium man:man-db; do
	if command -v "${tool%%:*}" >/dev/null 2>&1; then
		log "${tool%%:*} already installed"
	elif [[ " ${packages[*]} " != *" ${tool#*:} "* ]]; then
		log "${tool%%:*} missing: will install ${tool#*:}"
		packages+=("${tool#*:}")
	fi
done

if [ ${#packages[@]} -eq 0 ]; then
	log "nothing to install"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	die "installing ${packages[*]} needs root: run sudo $0 (or apt-get install ${packages[*]})"
fi
command -v apt-get >/dev/null 2>&1 ||
	die "apt-get not found: this script supports Debian 12; install ${packages[*]} with your package manager"

before=$(online_clusters)

log "running apt-get update"
apt-get update -q
log "running apt-get install ${packages[*]}"
apt-get install -y -q --no-install-recommends "${packages[@]}"

# Stop whatever the install started; leave clusters that ran before alone.
while read -r version name; do
	[ -n "$version" ] || continue
	if printf '%s\n' "$before" | grep -qx "$version $name"; then
		log "cluster $version/$name was running before this script; left alone"
		continue
	fi
	stop_cluster "$version" "$name"
done <<<"$(online_clusters)"

# Debian's prometheus package starts its server on :9090: the tests start
# their own, so stop it (best effort) unless it ran before.
if [[ " ${packages[*]} " == *" prometheus "* ]]; then
	if command -v service >/dev/null 2>&1 && service prometheus stop >/dev/null 2>&1; then
		log "stopped the prometheus service the install started (the tests start their own)"
	fi
	pkill -x prometheus >/dev/null 2>&1 && log "stopped the prometheus server the install started" || true
fi

dir=$(server_dir) || die "apt-get install finished but no PostgreSQL server is in /usr/lib/postgresql/*/bin; check the apt-get output above"
log "PostgreSQL server: $dir ($("$dir/postgres" --version))"
command -v taskset >/dev/null 2>&1 || die "util-linux installed but taskset is still missing; check the apt-get output above"
log "taskset: $(command -v taskset)"
log "done"
