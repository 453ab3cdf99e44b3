#!/usr/bin/env bash
# Checks the C shims' memory safety on real and generated movies (CAVFormatShims), images (CVipsShims) and DNGs
# (CRaw) (part of the test command):
#   1. Tests/CShimChecks/av_check.c built with AddressSanitizer + UndefinedBehaviorSanitizer (the shim's own code), and
#      the openphotokit-transcode helper over the same movies;
#   2. the same built plain and run under valgrind's memcheck, which also sees what the uninstrumented system libraries
#      (libswscale's vector stores, decoders) write into buffers the shim gives them — the class of bug that corrupted
#      the heap on a 568×320 iPhone video.
# Inputs: movies generated here in awkward shapes (widths that are no multiple of 16 or 32, odd sizes, 4:2:2 and
# 4:4:4, 10-bit HEVC, rotation, audio first and timed metadata as iPhones write them), every movie of ../shared/media
# when it is beside the repository, and its damaged ones (which must fail cleanly).
#
#   scripts/check-c.sh            the whole check
#   scripts/check-c.sh --quick    ASan only (no valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=no
[ "${1:-}" = --quick ] && quick=yes
work=.build-cchecks
mkdir -p "$work/media" "$work/scratch"
flags=(-std=gnu11 -g -O1 -Wall -Werror -I Sources)
libs=$(pkg-config --cflags --libs libavformat libavcodec libavutil libswscale libswresample)

# Generated movies: each made once (kept in the git-ignored build folder).
make_movie() {
  local name=$1; shift
  [ -s "$work/media/$name" ] || ffmpeg -v error -y "$@" "$work/media/$name"
}
make_movie iphone_568x320.mov -f lavfi -i sine=frequency=440:duration=1 -f lavfi -i testsrc=size=568x320:rate=30:duration=1 \
  -map 0:a -map 1:v -c:v libx264 -pix_fmt yuv420p -c:a aac -metadata location=+48.8577+002.2950/ \
  -metadata com.apple.quicktime.make=Apple -movflags use_metadata_tags
make_movie odd_17x9_444.mp4 -f lavfi -i testsrc=size=17x9:rate=10:duration=1 -c:v libx264 -pix_fmt yuv444p
make_movie narrow_2x66_420.mp4 -f lavfi -i testsrc=size=2x66:rate=10:duration=1 -c:v libx264 -pix_fmt yuv420p
make_movie wide_1000x18_422.mov -f lavfi -i testsrc=size=1000x18:rate=10:duration=1 -c:v libx264 -pix_fmt yuv422p
make_movie hevc10_130x66_rotated.mov -f lavfi -i testsrc=size=130x66:rate=10:duration=1 -c:v libx265 -x265-params log-level=none \
  -pix_fmt yuv420p10le -tag:v hvc1 -metadata:s:v:0 rotate=90
make_movie mjpeg_66x34.mov -f lavfi -i testsrc=size=66x34:rate=10:duration=1 -c:v mjpeg -pix_fmt yuvj422p
make_movie prores_94x50.mov -f lavfi -i testsrc=size=94x50:rate=10:duration=1 -c:v prores_ks -pix_fmt yuv422p10le

movies=("$work"/media/*)
damaged=()
if [ -d ../shared/media ]; then
  while IFS= read -r -d '' f; do movies+=("$f"); done < <(find ../shared/media -type f \( -iname '*.mov' -o -iname '*.mp4' \) ! -path '*/broken/*' -print0 | sort -z)
  while IFS= read -r -d '' f; do damaged+=("$f"); done < <(find ../shared/media/broken -type f -print0 2>/dev/null | sort -z)
fi
damaged+=(/dev/null "$0")

echo "check-c: AddressSanitizer + UBSan over ${#movies[@]} movies and ${#damaged[@]} damaged inputs" >&2
# shellcheck disable=SC2086
cc "${flags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  Tests/CShimChecks/av_check.c Sources/CAVFormatShims/*.c -I Sources/CAVFormatShims/include -o "$work/av_check_asan" $libs -lm
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  "$work/av_check_asan" "$work/scratch" "${movies[@]}" --damaged "${damaged[@]}" >"$work/asan.log" 2>&1 \
  || { tail -40 "$work/asan.log" >&2; echo "check-c: AddressSanitizer run FAILED (log: $work/asan.log)" >&2; exit 1; }
tail -1 "$work/asan.log" >&2

echo "check-c: openphotokit-transcode (the web rendering helper) under AddressSanitizer + UBSan" >&2
# shellcheck disable=SC2086
cc "${flags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  Sources/openphotokit-transcode/main.c Sources/CAVFormatShims/*.c -I Sources/CAVFormatShims/include -o "$work/transcode_asan" $libs -lm
for movie in "$work"/media/* "${damaged[@]}"; do
  out="$work/scratch/web-$(basename "$movie").mp4"
  rm -f "$out"
  status=0
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$work/transcode_asan" "$movie" "$out" 320 180 1 >"$work/transcode.log" 2>&1 || status=$?
  # 0 (encoded) or 1 (refused, with an error line); anything else is the helper's own fault.
  if [ "$status" -gt 1 ] || grep -q -E 'ERROR: AddressSanitizer|runtime error' "$work/transcode.log"; then
    tail -40 "$work/transcode.log" >&2; echo "check-c: openphotokit-transcode FAILED on $movie" >&2; exit 1
  fi
  case "$movie" in "$work"/media/*) [ "$status" -eq 0 ] && [ -s "$out" ] \
    || { cat "$work/transcode.log" >&2; echo "check-c: openphotokit-transcode did not encode $movie" >&2; exit 1; } ;; esac
done
echo "openphotokit-transcode: ${#damaged[@]} damaged inputs refused, $(ls "$work"/media | wc -l) movies encoded" >&2

if [ "$quick" = no ]; then
  command -v valgrind >/dev/null || { echo "check-c: valgrind is missing (scripts/setup.sh installs it)" >&2; exit 1; }
  echo "check-c: valgrind memcheck over the same inputs" >&2
  # shellcheck disable=SC2086
  cc "${flags[@]}" Tests/CShimChecks/av_check.c Sources/CAVFormatShims/*.c -I Sources/CAVFormatShims/include -o "$work/av_check" $libs -lm
  valgrind -q --error-exitcode=99 --leak-check=no "$work/av_check" "$work/scratch" "${movies[@]}" --damaged "${damaged[@]}" \
    >"$work/valgrind.log" 2>&1 \
    || { grep -m 60 -E "==[0-9]+==|failed|FAIL" "$work/valgrind.log" >&2; echo "check-c: valgrind run FAILED (log: $work/valgrind.log)" >&2; exit 1; }
  tail -1 "$work/valgrind.log" >&2
fi
# Images (Sources/CVipsShims over libvips and libheif): images the check writes (every orientation, odd sizes, a HEIF
# grid of partial tiles), the photos of ../shared/media when it is beside the repository, and its damaged JPEGs. Damaged
# HEIF files are left out: libheif asserts on some, which is why the library reads them in a helper process first
# (HEIFCheck), and PNG bombs are refused by the probe's pixel limit before libvips sees them. libvips' and GLib's own
# caches live as long as the process, so leaks are not reported here.
echo "check-c: CVipsShims under AddressSanitizer + UBSan" >&2
images=()
damaged_images=(/dev/null "$0")
if [ -d ../shared/media ]; then
  while IFS= read -r -d '' f; do images+=("$f"); done < <(find ../shared/media -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.heic' -o -iname '*.heif' \) ! -path '*/broken/*' -print0 | sort -z)
  while IFS= read -r -d '' f; do damaged_images+=("$f"); done < <(find ../shared/media/broken -type f -iname '*.jpg' -print0 2>/dev/null | sort -z)
fi
mkdir -p "$work/vips-scratch"
# shellcheck disable=SC2046
cc "${flags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  Tests/CShimChecks/vips_check.c Sources/CVipsShims/*.c Sources/CSampleImages/*.c -I Sources/CVipsShims/include \
  -I Sources/CSampleImages/include -o "$work/vips_check_asan" $(pkg-config --cflags --libs vips) -lm
ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  "$work/vips_check_asan" "$work/vips-scratch" "${images[@]}" --damaged "${damaged_images[@]}" >"$work/vips-asan.log" 2>&1 \
  || { grep -v -E 'VIPS-WARNING|^$|Premature end|Corrupt JPEG' "$work/vips-asan.log" | tail -40 >&2; echo "check-c: CVipsShims AddressSanitizer run FAILED (log: $work/vips-asan.log)" >&2; exit 1; }
tail -1 "$work/vips-asan.log" >&2

# Camera RAW (Sources/CRaw over LibRaw): generated DNGs of awkward shapes and damaged copies of them.
python3 Tests/CShimChecks/make_dng.py "$work/raw"
echo "check-c: CRaw under AddressSanitizer + UBSan, then valgrind, over generated and damaged DNGs" >&2
raw_inputs=("$work"/raw/*.dng --damaged "$work"/raw/damaged/*.dng)
cc "${flags[@]}" -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  Tests/CShimChecks/raw_check.c Sources/CRaw/raw.c -I Sources/CRaw/include -o "$work/raw_check_asan" -lraw -lm
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 "$work/raw_check_asan" "${raw_inputs[@]}" \
  >"$work/raw-asan.log" 2>&1 \
  || { tail -40 "$work/raw-asan.log" >&2; echo "check-c: CRaw AddressSanitizer run FAILED (log: $work/raw-asan.log)" >&2; exit 1; }
tail -1 "$work/raw-asan.log" >&2
if [ "$quick" = no ]; then
  cc "${flags[@]}" Tests/CShimChecks/raw_check.c Sources/CRaw/raw.c -I Sources/CRaw/include -o "$work/raw_check" -lraw -lm
  valgrind -q --error-exitcode=99 --leak-check=no --suppressions=Tests/CShimChecks/libraw.supp "$work/raw_check" "${raw_inputs[@]}" >"$work/raw-valgrind.log" 2>&1 \
    || { grep -m 60 -E "==[0-9]+==|FAIL" "$work/raw-valgrind.log" >&2; echo "check-c: CRaw valgrind run FAILED" >&2; exit 1; }
  tail -1 "$work/raw-valgrind.log" >&2
fi
echo "check-c: passed"
