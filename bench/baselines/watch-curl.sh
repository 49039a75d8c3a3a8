#!/usr/bin/env bash
# Baseline (a) of the rollout watch: what a hand-written pipeline does after its POST, and what
# the deploy step did before it polled quickly at first: curl version.json every POLL_SECONDS
# until it gives EXPECTED on two polls in a row.
set -euo pipefail
curl -s -o /dev/null -X POST "$WEBHOOK_URL" \
  -H "Authorization: Bearer $WEBHOOK_TOKEN" -H 'Content-Type: application/json' -d '{"frontend":{}}'
streak=0
while true; do
  served=$(curl -s -H 'Cache-Control: no-cache' "$APP_URL/version.json" | jq -r '.version // empty' || true)
  if [ "$served" = "$EXPECTED" ]; then streak=$((streak + 1)); else streak=0; fi
  if [ "$streak" -ge 2 ]; then exit 0; fi
  sleep "$POLL_SECONDS"
done
