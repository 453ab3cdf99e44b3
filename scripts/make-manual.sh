#!/usr/bin/env bash
# Regenerates docs/man/photos.1 from the command's own help (swift-argument-parser's generate-manual tool), so the
# man page says what `photos --help` says. Run it after changing a command's options or help, and commit the page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product photos >/dev/null
swift build --product generate-manual >/dev/null
mkdir -p docs/man
.build/debug/generate-manual .build/debug/photos --output-directory docs/man --date "$(date -u +%Y-%m-%d)"
echo "docs/man/photos.1 written (man docs/man/photos.1 to read it)"
