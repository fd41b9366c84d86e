#!/usr/bin/env bash
# Builds the site and serves it at http://127.0.0.1:8080 (deep links fall back to index.html).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$ROOT"
scripts/setup.sh
# No autoreload: Trunk injects it as an inline script, which the page's CSP refuses.
exec trunk serve --release --no-autoreload --address 127.0.0.1 --port 8080 "$@"
