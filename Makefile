# netscript: build, test, benchmark, demo.
#
#   make demo    build bin/netscript and run scripts/sweep.star against the
#                embedded loopback server
#   make test    vet, gofmt, go.mod tidy, staticcheck, the whole test suite
#                under -race, and a short pass of every fuzz target
#   make bench   netscript against the C reference (pingpong) side by side,
#                and netperf 2.7.1 at both ends beside it
#   make bench-hostile
#                what idle and hostile control connections cost the daemon
#                (memory, descriptors, tcp_rr throughput meanwhile)
#   make build   bin/netscript
#   make image   the container image (bin/netscript-image.tar, bin/netscript-oci):
#                docs/kubernetes.md
#   make kube-apiserver
#                build kube-apiserver and kube-proxy once per machine into the
#                user's cache for the discovery tests (internal/kubetest)

GO        ?= go
VERSION   ?= 0.1.0
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOFLAGS   += -buildvcs=false
export GOFLAGS
# The binaries are pure Go and static. A cgo build starts its threads
# through glibc, which registers rseq on each of them; the kernel then
# updates that area after every context switch, and on a round trip that
# switches twice per transaction this cost about 1 % per end here
# (docs/measurement.md, The data path). Tests keep the default: -race
# wants cgo.
BUILDENV  := CGO_ENABLED=0

# How much each fuzz target runs in `make test`: a count of inputs, not a
# time (a time limit makes the fuzzer fail spuriously on a loaded machine);
# longer: make fuzz FUZZTIME=5m.
FUZZTIME  ?= 20000x
# staticcheck, pinned, run through the Go module proxy (nothing to install).
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# The C reference of ../shared/ref, built for `make bench`.
PINGPONG_SRC ?= ../shared/ref/pingpong.c
# Benchmark rounds per cell and seconds per run.
ROUNDS    ?= 5
SECONDS   ?= 3

.PHONY: all build image kube-apiserver test vet fmtcheck tidycheck staticcheck unit fuzz bench bench-hostile demo clean

all: build

build:
	$(BUILDENV) $(GO) build -ldflags '$(LDFLAGS)' -o bin/netscript ./cmd/netscript

# The image: the static binary built reproducibly (paths trimmed, the
# commit's time for every file), in one layer with no shell, no registry
# and no container daemon (internal/imagebuild, go-containerregistry).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
IMAGE     ?= netscript:$(VERSION)
image:
	@mkdir -p bin/image
	$(BUILDENV) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/image/netscript ./cmd/netscript
	$(GO) run ./cmd/nsimage -binary bin/image/netscript -created $(SOURCE_DATE_EPOCH) -version $(VERSION) \
		-revision $(COMMIT) -tag $(IMAGE) -o bin/netscript-image.tar -oci bin/netscript-oci

kube-apiserver:
	$(GO) run ./internal/kubetest/kasbuild

test: vet fmtcheck tidycheck staticcheck unit fuzz

vet:
	$(GO) vet ./...

fmtcheck:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# go.mod and go.sum must be what `go mod tidy` makes of them.
tidycheck:
	@$(GO) mod tidy -diff || { echo "go mod tidy would change go.mod or go.sum (above): run it and commit"; exit 1; }

staticcheck:
	$(GO) run $(STATICCHECK) ./...

unit:
	$(GO) test -race -count=1 -timeout 15m ./...

# Every fuzz target, each for FUZZTIME, starting from its committed corpus.
# Each run logs to a temporary file of its own (shown only on failure), so
# two runs at once never share one.
fuzz:
	@set -e; log=$$(mktemp "$${TMPDIR:-/tmp}/netscript-fuzz.XXXXXX"); \
	trap 'rm -f "$$log"' EXIT; trap 'exit 130' INT TERM; \
	for pkg in $$($(GO) list ./...); do \
		dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
		for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
			echo "fuzz $$pkg $$f ($(FUZZTIME))"; \
			$(GO) test -run='^$$' -fuzz="^$$f\$$" -fuzztime=$(FUZZTIME) $$pkg > "$$log" 2>&1 || \
				{ cat "$$log"; exit 1; }; \
		done; \
	done

.bench/pingpong: $(PINGPONG_SRC)
	@mkdir -p .bench
	cc -O2 -pthread -o $@ $(PINGPONG_SRC)

bench: build .bench/pingpong
	$(BUILDENV) $(GO) build -o bin/nsbench ./cmd/nsbench
	bin/nsbench -netscript bin/netscript -pingpong .bench/pingpong -netperf ../shared/peers/netperf-2.7.1 -rounds $(ROUNDS) -seconds $(SECONDS)
	@echo "(make bench-hostile: the daemon under $(CONNS) idle or hostile control connections)"

# The daemon with CONNS control connections that never become tests: its
# memory and descriptors, and a tcp_rr through it against the same test with
# the daemon idle, alternating round by round.
CONNS     ?= 200
bench-hostile: build
	$(BUILDENV) $(GO) build -o bin/nsbench ./cmd/nsbench
	bin/nsbench -hostile -netscript bin/netscript -conns $(CONNS) -rounds $(ROUNDS) -seconds $(SECONDS)

demo: build
	bin/netscript scripts/sweep.star

clean:
	rm -rf bin .bench
