#!/usr/bin/env bash
# Installs what Mandelscope needs on a Debian or Ubuntu machine, only what is missing.
#   scripts/deps.sh build   a C compiler and the X11/OpenGL headers GLFW is built against, Go
#   scripts/deps.sh test    the above, plus Xvfb, xdotool, ImageMagick and pngcheck for the tests
set -eu
mode=${1:-build}
pkgs="gcc pkg-config libc6-dev libgl1-mesa-dev libgl1-mesa-dri libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev"
if [ "$mode" = test ]; then
  pkgs="$pkgs xvfb xauth x11-utils xdotool imagemagick pngcheck"
fi
if ! command -v go >/dev/null 2>&1; then
  pkgs="$pkgs golang-go"
fi
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
# go.mod names the Go version; a Go of 1.21 or later fetches it by itself (GOTOOLCHAIN=auto).
export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
go version >/dev/null
