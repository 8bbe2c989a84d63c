# stxgraph: `make run` serves the API on 127.0.0.1:3999 (event observer on :3700);
# `make test` runs every test against the local PostgreSQL.
GO       ?= go
BIN      := bin/stxgraph
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
CROSSCHECK := stacks/tx/testdata/crosscheck

.PHONY: run build test generate check-generate lint postgres crosscheck-deps bench fuzz

run: postgres build
	$(BIN) serve

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/stxgraph

postgres:
	@scripts/postgres-up

# The npm cross-check (@stacks/transactions) runs when node is available.
crosscheck-deps:
	@if command -v npm >/dev/null && [ -f $(CROSSCHECK)/package.json ]; then \
		npm ci --prefix $(CROSSCHECK) --no-audit --no-fund --loglevel=error; \
	else echo "npm or the cross-check package is missing: the npm cross-checks will be skipped"; fi

test: postgres crosscheck-deps
	$(GO) test -count=1 ./...

generate:
	$(GO) tool gqlgen generate

# CI: generated code must be what `make generate` produces.
check-generate: generate
	@git diff --exit-code -- graph/ || (echo "graph/ is stale: run 'make generate' and commit" >&2; exit 1)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: postgres
	$(GO) test -run='^$$' -bench=. -benchmem ./...

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzDecodeTransaction -fuzztime=2m ./stacks/tx
	$(GO) test -run='^$$' -fuzz=FuzzDecodeClarity -fuzztime=2m ./stacks/clarity
