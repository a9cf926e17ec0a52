#!/bin/sh
# Cross-platform checks: the Windows amd64 build (cgo with mingw-w64, as GLFW needs), go vet
# of every package for Windows, and go vet of the packages without cgo for macOS and FreeBSD.
# Needs Debian's gcc-mingw-w64-x86-64 (x86_64-w64-mingw32-gcc). Usage: scripts/cross-check.sh [OUT.exe]
# CROSS_BUILD=0 skips the build (scripts/test.sh does: scripts/package.sh builds the release .exe).
set -eu
out=${1:-${TMPDIR:-/tmp}/mandelscope.exe}
win="env CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc"
if [ "${CROSS_BUILD:-1}" != 0 ]; then $win go build -o "$out" .; fi
$win go vet ./...
# internal/cli imports render (go-gl, cgo): the Windows vet above covers it.
nocgo=$(go list ./internal/... | grep -v '^mandelscope/internal/cli$')
for os in darwin freebsd; do
	GOOS=$os GOARCH=amd64 CGO_ENABLED=0 go vet ./fractal/... ./bookmarks/... ./export/... ./render/cpu/... $nocgo
done
echo "cross-check: vet clean for windows, darwin and freebsd${CROSS_BUILD:+}"
