#!/usr/bin/env bash
# Installs what Mandelscope needs on a Debian or Ubuntu machine, only what is missing.
#   scripts/deps.sh build   a C compiler and the X11/OpenGL headers GLFW is built against, Go
#   scripts/deps.sh test    the above, plus Xvfb, xdotool, ImageMagick and pngcheck for the tests,
#                           the mingw-w64 cross compiler for the Windows package, ffmpeg for the videos,
#                           and Slurm with munge for the cluster test (scripts/slurm-test.sh)
#   scripts/deps.sh wine    the above, plus debootstrap for the Wine test's Debian 13 chroot
#                           (scripts/wine-test.sh)
set -eu
mode=${1:-build}
pkgs="gcc pkg-config libc6-dev libgl1-mesa-dev libgl1-mesa-dri libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev"
if [ "$mode" = test ] || [ "$mode" = wine ]; then
  pkgs="$pkgs xvfb xauth x11-utils xdotool imagemagick pngcheck gcc-mingw-w64-x86-64 xz-utils python3 openexr ffmpeg slurm-wlm munge"
fi
[ "$mode" = wine ] && pkgs="$pkgs debootstrap"
pkgs="$pkgs curl unzip ca-certificates"
# No Go at all: the distribution's Go, which knows the module proxy the toolchain comes from below.
command -v go >/dev/null 2>&1 || [ -x "${XDG_CACHE_HOME:-$HOME/.cache}/mandelscope/go/bin/go" ] || pkgs="$pkgs golang-go"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing packages:$missing (this script knows only apt-get; install them by hand)" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "deps: installing$missing" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Go: any Go of 1.21 or later fetches the version go.mod names by itself (GOTOOLCHAIN=auto).
# With an older distribution Go (Debian 12's is 1.19), fetch that toolchain from the Go module
# proxy that Go is configured with (`go env GOPROXY`: the environment or Go's own default) into
# ~/.cache/mandelscope/go; the Makefile puts it first on PATH.
want=$(awk '/^go /{print $2; exit}' "$(dirname "$0")/../go.mod")
have=$(go env GOVERSION 2>/dev/null | sed 's/^go//' || true)
new_enough() { [ -n "$1" ] && [ "$(printf '%s\n1.21\n' "$1" | sort -V | head -n1)" = 1.21 ]; }
if ! new_enough "$have"; then
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/mandelscope/go"
  if [ ! -x "$dir/bin/go" ]; then
    arch=$(dpkg --print-architecture)
    proxy=$(go env GOPROXY 2>/dev/null | tr ',|' '\n\n' | grep -E '^https?://' | head -n1 || true)
    if [ -z "$proxy" ]; then
      echo "deps: Go $have is older than 1.21 and no module proxy is configured (go env GOPROXY); set GOPROXY or install Go $want" >&2
      exit 1
    fi
    url="$proxy/golang.org/toolchain/@v/v0.0.1-go$want.linux-$arch.zip"
    echo "deps: no Go 1.21+ found; fetching Go $want from $url" >&2
    tmp=$(mktemp -d)
    curl -fsSL -o "$tmp/go.zip" "$url"
    unzip -q "$tmp/go.zip" -d "$tmp"
    mkdir -p "$(dirname "$dir")"
    rm -rf "$dir"
    mv "$tmp/golang.org/toolchain@v0.0.1-go$want.linux-$arch" "$dir"
    chmod +x "$dir/bin/"* "$dir/pkg/tool/"*/* 2>/dev/null || true
    rm -rf "$tmp"
  fi
  "$dir/bin/go" version >/dev/null
fi
