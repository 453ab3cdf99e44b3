#!/usr/bin/env bash
# Installs what OpenPhotoKit needs on Debian 12 with Swift: libvips (images), libexif, LibRaw (camera RAW),
# libavformat/libavcodec/libswscale (video), ffmpeg (test media), SQLite headers — and libheif ≥ 1.17, which HEIC from
# iOS 18 needs: Debian 12 ships 1.15, so libheif 1.19 and its decoder/encoder plugins come from Debian's
# bookworm-backports suite (a proper system package: every binary on the machine uses it, wherever it is installed).
# Chromium and its WebDriver run the web gallery's browser tests; bubblewrap is the sandbox editing extensions run
# in; valgrind checks the C shims.
# Idempotent and quiet when all is present.
set -euo pipefail
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_install() {
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

packages=(pkg-config python3 openssl curl valgrind bubblewrap iproute2 nginx-light wrk postgresql-15 postgresql-client-15 libsqlite3-dev libvips-dev libexif-dev libraw-dev libavformat-dev libswscale-dev libswresample-dev ffmpeg chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
updated=no
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  updated=yes
  apt_install "${missing[@]}"
fi

# libheif: the system's if it is new enough, else bookworm-backports' (same soname; libvips 8.14 uses it as is).
heif_version=$(dpkg-query -W -f='${Version}' libheif1 2>/dev/null || echo 0)
if dpkg --compare-versions "$heif_version" lt 1.17 \
  || ! dpkg-query -W -f='${Status}' libheif-plugin-libde265 2>/dev/null | grep -q "install ok installed"; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  target=()
  if [ "$codename" = bookworm ]; then
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
      echo "setup: adding Debian's bookworm-backports suite (for libheif 1.19)" >&2
      printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
        | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
      updated=no
    fi
    target=(-t bookworm-backports)
  fi
  [ "$updated" = yes ] || $SUDO apt-get update -qq
  echo "setup: installing libheif (${target[*]:-system}) with the libde265 and x265 plugins" >&2
  apt_install "${target[@]}" libheif1 libheif-dev libheif-plugin-libde265 libheif-plugin-x265
fi
heif_version=$(dpkg-query -W -f='${Version}' libheif1)
if dpkg --compare-versions "$heif_version" lt 1.17; then
  echo "setup: warning: libheif $heif_version is installed; HEIC from iOS 18 needs libheif ≥ 1.17" >&2
fi
