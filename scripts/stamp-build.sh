#!/usr/bin/env bash
# Trunk's post_build hook (Trunk.toml): names the build by a hash of what it serves and
# writes that id into sw.js and index.html (`__BUILD__`). A new deployment thus has a new
# service worker, which replaces the old offline shell (public/sw.js); the same sources
# give the same id, so an unchanged site does not make browsers fetch its shell again.
set -euo pipefail
cd "${TRUNK_STAGING_DIR:?run by trunk build (Trunk.toml hooks)}"
# The model is left out: it has its own cache, keyed by its checked SHA-256.
id=$(find . -type f ! -name sw.js ! -path './models/*' -print0 | LC_ALL=C sort -z \
  | xargs -0 sha256sum | sha256sum | cut -c1-16)
for file in sw.js index.html; do
  grep -q __BUILD__ "$file" || { echo "stamp-build: no __BUILD__ marker in $file" >&2; exit 1; }
  sed -i "s/__BUILD__/$id/g" "$file"
done
echo "stamp-build: build $id"
