# Quick start: `make run` opens the explorer, `make test` runs every check.
# Each installs what it needs on a Debian/Ubuntu machine first (scripts/deps.sh).
.PHONY: run build test deps-build deps-test bench peer clean

run: build
	./mandelscope

build: deps-build
	go build -o mandelscope .

test: deps-test
	./scripts/test.sh

deps-build:
	./scripts/deps.sh build

deps-test:
	./scripts/deps.sh test

# The preview benchmark and the export comparison with G'MIC (needs gmic and GNU time).
bench: build
	./mandelscope bench --size=1280x720

peer:
	../shared/bench/peer-gmic

clean:
	rm -f mandelscope
