#!/usr/bin/env bash
# Prints the path of a helm binary for the packaging test: helm on PATH, or
# one built from the Go module proxy into $LAGSCOPE_CACHE/tools (helm is a
# tool of the test, not a dependency of lagscope's module).
set -euo pipefail
if command -v helm >/dev/null 2>&1; then
	command -v helm
	exit 0
fi
version=${HELM_VERSION:-v3.19.0}
tools=${LAGSCOPE_CACHE:-$HOME/.cache/lagscope}/tools/helm-$version
if [[ ! -x $tools/helm ]]; then
	mkdir -p "$tools"
	GOBIN=$tools GOFLAGS=-mod=mod CGO_ENABLED=0 go install "helm.sh/helm/v3/cmd/helm@$version" >&2
fi
echo "$tools/helm"
