# Quick start: `make run` opens the explorer, `make test` runs every check.
# Each installs what it needs on a Debian/Ubuntu machine first (scripts/deps.sh).
.PHONY: run build test package package-check wine-test deps-build deps-test deps-wine bench peer peer-deep clean

# Where scripts/deps.sh puts a Go toolchain when the machine has none (or one older than 1.21).
export PATH := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mandelscope/go/bin:$(PATH)

run: build
	./mandelscope

# GOEXPERIMENT=simd builds the vector loops of the deep-zoom CPU renderer (fractal.VectorPath:
# AVX-512 or AVX2, chosen at run time); a plain `go build` gives the scalar loop.
build: deps-build
	GOEXPERIMENT=simd go build -o mandelscope .

test: deps-test
	./scripts/test.sh

# The Linux archive (binary, .desktop entry, icon) and the Windows .exe, in dist/.
package: deps-test
	./scripts/package.sh dist

# The same packages built and checked in a temporary folder, then removed (CI runs it after
# make test).
package-check: deps-test
	d=$$(mktemp -d) && ./scripts/package.sh "$$d"; s=$$?; rm -rf "$$d"; exit $$s

# The Windows .exe run under Wine (Debian 13's, in a chroot cached in /var/cache/mandelscope),
# checked against the Linux program: version, CPU exports pixel for pixel, the window (CI runs it
# after package-check; needs root).
wine-test: deps-wine
	./scripts/wine-test.sh

deps-build:
	./scripts/deps.sh build

deps-test:
	./scripts/deps.sh test

deps-wine:
	./scripts/deps.sh wine

# The preview benchmark and the export comparison with G'MIC (needs gmic and GNU time).
bench: build
	./mandelscope bench --size=1280x720

peer:
	../shared/bench/peer-gmic

# The deep-zoom comparison with fractalnow's MPFR renderer (needs fractalnow and GNU time).
peer-deep:
	./bench/peer-fractalnow

clean:
	rm -rf mandelscope dist
