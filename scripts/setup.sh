#!/usr/bin/env bash
# Installs what OpenPhotoKit needs on Debian 12 with Swift: libvips (images), libavformat (video headers),
# ffmpeg (test media), SQLite headers. Idempotent and quiet when everything is present.
set -euo pipefail
packages=(pkg-config libsqlite3-dev libvips-dev libavformat-dev ffmpeg)
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
