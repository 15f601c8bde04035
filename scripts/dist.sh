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
targets=(linux/amd64 linux/arm64 darwin/arm64)
for t in "${targets[@]}"; do
	os=${t%/*} arch=${t#*/}
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -buildvcs=$vcs -ldflags "$ldflags" \
		-o "$OUT/stage/lagscope_${version}_${os}_${arch}/lagscope" ./cmd/lagscope
done
echo "dist: binaries of lagscope v$version in $OUT/stage"
