#!/bin/sh
# Cross-platform checks: the Windows amd64 build (cgo with mingw-w64, as GLFW needs), go vet
# of every package for Windows, and go vet of the packages without cgo for macOS and FreeBSD.
# Needs Debian's gcc-mingw-w64-x86-64 (x86_64-w64-mingw32-gcc). Usage: scripts/cross-check.sh [OUT.exe]
set -eu
out=${1:-${TMPDIR:-/tmp}/mandelscope.exe}
win="env CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc"
$win go build -o "$out" .
$win go vet ./...
for os in darwin freebsd; do
	GOOS=$os GOARCH=amd64 CGO_ENABLED=0 go vet ./fractal/... ./bookmarks/... ./export/... ./render/cpu/... ./internal/...
done
echo "cross-check: built $out; vet clean for windows, darwin and freebsd"
