#!/usr/bin/env bash
# make dist: the release artifacts in dist/ (README.md and CONTRIBUTING.md
# say what each is). The version is the git tag v* at HEAD when there is one
# (it must match the VERSION file), else the VERSION file; it is stamped into
# the binaries (internal/buildinfo.release). Network: only the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
OUT=${DIST_DIR:-dist}

version=$(tr -d ' \n' < VERSION)
if tag=$(git describe --tags --exact-match --match 'v*' 2>/dev/null); then
	if [[ "$tag" != "v$version" ]]; then
		echo "dist: HEAD is tagged $tag but VERSION says $version: make them agree" >&2
		exit 2
	fi
fi
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "dist: VERSION '$version' is not a semantic version (1.2.3)" >&2; exit 2; }
vcs=false
git rev-parse --git-dir >/dev/null 2>&1 && vcs=true

rm -rf "$OUT"
mkdir -p "$OUT/stage"
ldflags="-s -w -X github.com/lagscope/lagscope/internal/buildinfo.release=v$version"
# DIST_TARGETS narrows the platforms (the packaging test builds the host's only).
read -r -a targets <<< "${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/arm64}"
for t in "${targets[@]}"; do
	os=${t%/*} arch=${t#*/}
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -buildvcs=$vcs -ldflags "$ldflags" \
		-o "$OUT/stage/lagscope_${version}_${os}_${arch}/lagscope" ./cmd/lagscope
done

# Man pages and completions from the command tree (cmd/lagscope-docs), dated
# as the release in CHANGELOG.md.
date=$(sed -n "s/^## \[$version\] - \([0-9-]*\)$/\1/p" CHANGELOG.md)
$GO run ./cmd/lagscope-docs -man "$OUT/stage/man" -completions "$OUT/stage/completions" -version "v$version" ${date:+-date "$date"}

# Tarballs, .deb, .rpm, the OCI image, the chart and SHA256SUMS
# (packaging/dist, a module of its own: its libraries are not lagscope's).
root=$(pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
(cd packaging/dist && $GO run . -root "$root" -stage "$(abs "$OUT/stage")" -out "$(abs "$OUT")" \
	-version "$version" -targets "$(IFS=,; echo "${targets[*]}")")
echo "dist: lagscope v$version:"
(cd "$OUT" && ls -1 -- *.* SHA256SUMS)
