#!/usr/bin/env bash
# Runs every check of the project: formatting, go vet, staticcheck, the tests once under the
# race detector (GPU tests on the machine's OpenGL, under a private Xvfb when there is no
# display), fractal's numerical tests again at full size, vet for Windows, macOS and FreeBSD,
# and each fuzz target for a short fixed number of executions. Used by `make test` and by CI;
# the release packages are built and checked by `make package-check` (CI runs both).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
# Each fuzz target runs for a fixed number of executions rather than a duration: a duration
# races Go's fuzz coordinator at the deadline and can fail with a bare "context deadline
# exceeded" and no failing input (go.dev/issue/75804, fixed in Go 1.27). 30000 executions take
# about 1 to 5 seconds a target here (FUZZTIME=600000x for a longer run).
FUZZTIME=${FUZZTIME:-30000x}

# stage says what runs next and how long the checks have taken so far.
stage() { printf 'test: %s (%dm%02ds)\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

xvfb_pid=""
cleanup() { [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true; }
trap cleanup EXIT
if [ -z "${DISPLAY:-}" ]; then
  for n in $(seq 90 120); do
    [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || { disp=":$n"; break; }
  done
  Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >/tmp/mandelscope-xvfb.log 2>&1 &
  xvfb_pid=$!
  export DISPLAY=$disp
  for _ in $(seq 50); do xdpyinfo -display "$DISPLAY" >/dev/null 2>&1 && break; sleep 0.1; done
  echo "test: started Xvfb on $DISPLAY"
fi
# The GPU tests must run here, not skip: CI has Mesa's software OpenGL under Xvfb.
export MANDELSCOPE_REQUIRE_GL=${MANDELSCOPE_REQUIRE_GL:-1}

stage "gofmt"
bad=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$bad" ]; then echo "gofmt would change: $bad" >&2; exit 1; fi
# Generated code is the generator's output: fractal's vector loops come from one template
# (fractal/internal/vecgen), and an edit to a generated file, or to the template without
# go generate, fails here.
stage "go generate changes nothing"
tree() { git status --porcelain=v1 --untracked-files=all; git diff; }
before=$(tree)
go generate ./...
if [ "$(tree)" != "$before" ]; then
  git status --short >&2
  echo "go generate ./... changed the tree: commit what it writes (edit the template, fractal/internal/vecgen/group.go.tmpl, not the files it writes)" >&2
  exit 1
fi
stage "go vet"
go vet ./...
stage "staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Every test once, under the race detector: concurrency is checked, not argued.
stage "go test -race"
go test -race -count=1 -timeout 40m ./...
# The race build shrinks fractal's numerical samples (its loops run about ten times slower there)
# and skips its longest checks against math/big, and export's deep view: those run here at full
# size, without it.
stage "go test ./fractal (full-size numerics), and export's deep automatic density"
go test -count=1 -timeout 30m ./fractal/
go test -count=1 -timeout 10m -run 'TestExportAutoDensityDeep' ./export/
# The cluster path for real: a single-node Slurm started and stopped by the script, the
# deploy/slurm array job and its assembly against a one-machine export (needs root, as CI is).
stage "Slurm (scripts/slurm-test.sh)"
if [ "$(id -u)" = 0 ]; then
  ./scripts/slurm-test.sh
else
  echo "test: skipping the Slurm test: it starts the daemons as root"
fi
# The Kubernetes manifests, offline: decoded strictly as the API's types (a module of its own,
# deploy/kubernetes/check) and checked for what a sharded export needs of them.
stage "Kubernetes manifests (deploy/kubernetes/check)"
(cd deploy/kubernetes/check && go vet ./... && go test -count=1 ./...)
# The platforms beyond this one: every package vetted for Windows, the pure-Go ones for macOS and
# FreeBSD (the Windows build itself is part of make package-check).
stage "go vet for windows, darwin and freebsd"
CROSS_BUILD=0 ./scripts/cross-check.sh

# The vector loops of the deep-zoom CPU renderer (GOEXPERIMENT=simd, as make build and the
# packages build): vet and staticcheck of that build, fractal's batch tests (each on the scalar,
# AVX2 and AVX-512 loops the CPU has, against the scalar PerturbEscape bit for bit) and the CPU
# renderer's tests on the widest loop (TestVectorPathsMatchScalar forces each loop), then (but
# for those two tests, the cancel test's references being slow) on AVX2 alone
# (MANDELSCOPE_SIMD=avx2) and on the scalar loop; the runs above were the default build,
# without the experiment. About 40 s.
stage "GOEXPERIMENT=simd (vector loops): vet, staticcheck, batch and deep tests"
GOEXPERIMENT=simd go vet ./fractal/... ./render/cpu/...
GOEXPERIMENT=simd go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./fractal/... ./render/cpu/...
GOEXPERIMENT=simd go test -count=1 -timeout 10m -run 'Perturb(DE)?(Exp)?Batch|PerturbFormulaBatch|PerturbChannels(Exp)?Batch|ChGroupRecRoundTrip|ChooseVector' ./fractal/
GOEXPERIMENT=simd go test -count=1 -timeout 10m ./render/cpu/
for simd in avx2 scalar; do
  MANDELSCOPE_SIMD=$simd GOEXPERIMENT=simd go test -count=1 -timeout 10m -skip 'TestCancelInsideDeepPixel|TestVectorPathsMatchScalar' ./render/cpu/
done

stage "fuzz targets, $FUZZTIME each"
for f in $(git ls-files '*_test.go'); do
  for t in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //'); do
    pkg="./$(dirname "$f")"
    echo "test: fuzz $pkg $t"
    go test -run '^$' -fuzz "^$t\$" -fuzztime "$FUZZTIME" -timeout 5m "$pkg" >/tmp/mandelscope-fuzz.log 2>&1 || { cat /tmp/mandelscope-fuzz.log; exit 1; }
  done
done
stage "all checks passed"
