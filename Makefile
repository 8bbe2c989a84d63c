# stxgraph: `make run` serves the API on 127.0.0.1:3999 (event observer on :3700);
# `make test` runs every test against the local PostgreSQL.
GO       ?= go
BIN      := bin/stxgraph
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# npm packages the tests use as independent checks: @stacks/transactions and the reference's
# API client @stacks/blockchain-api-client (installed when npm is available).
NPM_CHECKS := stacks/tx/testdata/crosscheck rest/testdata/contract

.PHONY: run build test generate check-generate lint postgres crosscheck-deps bench fuzz load bench-chain loadtest loadtest-paths graphiql explorer chromium btcd soak chaos

run: postgres build
	$(BIN) serve --demo

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/stxgraph

postgres:
	@scripts/postgres-up

crosscheck-deps:
	@if command -v npm >/dev/null; then \
		for d in $(NPM_CHECKS); do npm ci --prefix $$d --no-audit --no-fund --loglevel=error || exit 1; done; \
	else echo "npm not found: the npm cross-checks will be skipped"; fi

# btcd, the regtest Bitcoin node the BTC faucet tests run against, built once into .cache/bin.
BTCD_VERSION := v0.26.2
BTCD := .cache/bin/btcd

btcd: $(BTCD)

$(BTCD):
	GOBIN=$(CURDIR)/.cache/bin $(GO) install github.com/btcsuite/btcd@$(BTCD_VERSION)


# Headless Chromium for the browser tests of the GraphiQL and REST reference pages.
chromium:
	@test -x /usr/bin/chromium || { sudo=$$(test "$$(id -u)" = 0 || echo sudo); \
		$$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }


test: postgres crosscheck-deps btcd chromium
	$(GO) test -count=1 ./...

# The executable schema (graph/, gqlgen.yml; cmd/leafpath then shortens the leaf fields' path)
# and the Go types of the REST adapter's fixed operations (rest/operations_gen.go, genqlient.yaml).
generate:
	$(GO) tool gqlgen generate
	$(GO) run ./cmd/leafpath
	$(GO) tool genqlient genqlient.yaml

# The GraphiQL and REST reference pages' front-end bundle (server/graphiql/dist, embedded in the
# binary and committed, so `go build` alone needs no npm): rebuilt from the versions pinned in
# server/graphiql/package.json and package-lock.json.
graphiql:
	npm ci --prefix server/graphiql --no-audit --no-fund --loglevel=error
	cd server/graphiql && node build.mjs

# The explorer pages' bundle (server/explorer/dist, embedded and committed like GraphiQL's):
# rebuilt from the versions pinned in server/explorer/package.json and package-lock.json.
# `go test ./server -run TestExplorerInBrowser -update` rewrites the README's screenshots.
explorer:
	npm ci --prefix server/explorer --no-audit --no-fund --loglevel=error
	cd server/explorer && node build.mjs

# CI: generated code must be what `make generate` produces.
check-generate: generate
	@git diff --exit-code -- graph/ rest/operations_gen.go || (echo "generated code is stale: run 'make generate' and commit" >&2; exit 1)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Package benchmarks (decode, replay of the largest fixture, nested GraphQL, REST paths);
# ./bench has the long synthetic-chain ones (bench-chain).
bench: postgres
	$(GO) test -run='^$$' -bench=. -benchmem $$($(GO) list ./... | grep -v '/bench$$')

fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzDecodeTransaction -fuzztime=2m ./stacks/tx
	$(GO) test -run='^$$' -fuzz=FuzzDecodeClarity -fuzztime=2m ./stacks/clarity
	$(GO) test -run='^$$' -fuzz=FuzzParse -fuzztime=2m ./brc20
	$(GO) test -run='^$$' -fuzz=FuzzREST -fuzztime=5m -parallel=2 ./server
	$(GO) test -run='^$$' -fuzz=FuzzLiteralsMoved -fuzztime=2m ./server

# Long end-to-end benchmarks, kept out of `make test`: the replay rate of a synthetic chain, and
# busy-vs-idle account reads on a 183,000-transaction chain whose database the first run builds
# and keeps (a few minutes; BENCHFLAGS=-rebuild builds it again after ingestion changes).
BENCHTIME ?= 2s
bench-chain: postgres
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) ./internal/chaingen
	$(GO) test -run='^$$' -bench=. -benchtime=$(BENCHTIME) -timeout=60m ./bench -args $(BENCHFLAGS)

# Load test on that chain's database (built the first time, as by loadgen prepare): cmd/loadgen
# mixes measures the pgbench -S ceiling of this machine's PostgreSQL, then loads each of two mixes
# of reads shaped like wallet and explorer traffic (REST and GraphQL, parameters drawn over the
# whole chain: cmd/loadgen/mix.go) from 32 connections for LOADTEST_DURATION on a freshly started
# `stxgraph serve` that keeps answers (three runs each, the median shown), then each read of the
# mixes alone on a server started with
# --answer-cache-bytes 0 (its first computation). It prints req/s, p50/p99, errors, the server's
# and PostgreSQL's CPU and the SQL statements per request, and each rate over pgbench's and the
# reference's, and writes them to bench/RESULTS.md (keeping the run before). It first waits for
# the machine to quieten (a 1-minute load average of 1, two minutes at most), then takes about 25
# times LOADTEST_DURATION.
LOADTEST_PORT ?= 3998
LOADTEST_DURATION ?= 10s
# LOADTEST_CHAIN sets the chain's flags (loadgen prepare -h): `-txs 295` is the chain five
# times larger, whose busy account is in 250,000 transfers.
LOADTEST_CHAIN ?=
LOADTEST_RESULTS ?= bench/RESULTS.md
loadtest: postgres build
	$(GO) run ./cmd/loadgen mixes -server $(BIN) -port $(LOADTEST_PORT) -c 32 -d $(LOADTEST_DURATION) \
		-results $(LOADTEST_RESULTS) -note "stxgraph $(VERSION)$(if $(LOADTEST_CHAIN), chain $(LOADTEST_CHAIN))" $(LOADTEST_CHAIN)

# The fixed paths of the busiest and idle accounts, each alone for LOADTEST_DURATION (loadgen run's
# defaults), then the reads whose first computation matters again on a second server that keeps
# no answers; printed only.
loadtest-paths: postgres build
	@set -e; url=$$($(GO) run ./cmd/loadgen prepare $(LOADTEST_CHAIN)); \
	$(BIN) serve --database-url "$$url" --port $(LOADTEST_PORT) --event-port $$(($(LOADTEST_PORT) + 1)) \
		2>"$${TMPDIR:-/tmp}/stxgraph-loadtest.log" & pid=$$!; \
	$(BIN) serve --database-url "$$url" --port $$(($(LOADTEST_PORT) + 2)) --event-port $$(($(LOADTEST_PORT) + 3)) --answer-cache-bytes 0 \
		2>"$${TMPDIR:-/tmp}/stxgraph-loadtest-uncached.log" & pid2=$$!; trap 'kill $$pid $$pid2' EXIT; \
	$(GO) run ./cmd/loadgen run -wait 30s -url http://127.0.0.1:$(LOADTEST_PORT) -c 32 -d $(LOADTEST_DURATION) \
		-uncached http://127.0.0.1:$$(($(LOADTEST_PORT) + 2)) -pid $$pid $(LOADTEST_CHAIN)

# Loopback load test of the REST paths at 32 connections (req/s, p50/p99 per path).
load: postgres
	STXGRAPH_LOAD=10s $(GO) test -count=1 -run TestLoad -v ./rest

# BRC-20 token lookups per second at 32 connections over loopback HTTP, on the real mainnet
# inscriptions of the shared fixture (ingested first, a few seconds).
.PHONY: bench-brc20-lookups
bench-brc20-lookups: postgres
	$(GO) test -count=1 -run='^$$' -bench=BenchmarkBrc20TokenLookup -benchtime=$(BENCHTIME) ./rest

# Soak test: `stxgraph serve` on a copy of that chain's database; cmd/loadgen measures the peak
# rate of the REST and GraphQL mixes together (those of `make loadtest`, drawn with a seed), then
# holds SOAK_FRACTION of it for SOAK_DURATION while posting to the event observer a new block
# every 5 s and 10 signed mempool transactions a second, and prints per minute the requests,
# p50/p99, errors, blocks and mempool transactions ingested and the server's RSS. SOAK_CHAIN sets
# the chain's flags (loadgen prepare -h), SOAK_FLAGS the soak's (loadgen soak -h: -block-every,
# -mempool-rate, -draw-seed…).
SOAK_DURATION ?= 10m
SOAK_FRACTION ?= 0.8
SOAK_CHAIN ?=
SOAK_FLAGS ?=
soak: postgres build
	@set -e; url=$$($(GO) run ./cmd/loadgen soak-db $(SOAK_CHAIN)); \
	$(BIN) serve --database-url "$$url" --port $(LOADTEST_PORT) --event-port $$(($(LOADTEST_PORT) + 1)) \
		--store-raw-events=false 2>"$${TMPDIR:-/tmp}/stxgraph-soak.log" & pid=$$!; trap 'kill $$pid' EXIT; \
	$(GO) run ./cmd/loadgen soak -url http://127.0.0.1:$(LOADTEST_PORT) -events http://127.0.0.1:$$(($(LOADTEST_PORT) + 1)) \
		-pid $$pid -d $(SOAK_DURATION) -fraction $(SOAK_FRACTION) $(SOAK_CHAIN) $(SOAK_FLAGS)

# Chaos run (not part of `make test`): cmd/loadgen chaos starts a PostgreSQL 15 primary and a
# streaming replica of its own (temporary directory, free ports; never the machine's cluster),
# an ingesting `stxgraph serve` and a `serve --no-ingest` on the replica with the STX faucet on an
# in-process fake stacks-node, then for CHAOS_DURATION posts a generated chain (a block every
# 1.5 s with microblocks, 10 mempool transactions a second) retrying each message until it is
# accepted, drives the reads of the load benchmark's mixes, 20 resuming GraphQL subscribers and a
# faucet client retrying under Idempotency-Keys, while it SIGKILLs either process, crashes and
# restarts PostgreSQL, cuts the LISTEN connections and pauses the replica's replay. It then checks
# the chain state's digest against a fresh database fed the same messages, every subscriber's
# items against the notice log (each once, in order), no 5xx outside the fault windows and no
# payout made twice; it prints the summary, appends it to CHAOS_RESULTS, and exits non-zero on a
# failure. CHAOS_FLAGS: loadgen chaos -h (-fault-every, -rate, -replica=false, -keep…).
CHAOS_DURATION ?= 3m
CHAOS_RESULTS ?= bench/CHAOS.md
CHAOS_FLAGS ?=
chaos: build
	$(GO) run ./cmd/loadgen chaos -server $(BIN) -d $(CHAOS_DURATION) -results $(CHAOS_RESULTS) \
		-note "stxgraph $(VERSION)" $(CHAOS_FLAGS)
