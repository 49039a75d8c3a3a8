#!/usr/bin/env bash
# Baseline (c): Olympe's documented CI example: jq builds the payload, curl posts it.
set -euo pipefail
payload=$(jq -nc --arg f "$FRONTEND_IMAGE" --arg b "$BACKEND_IMAGE" \
  '{frontend: {image: $f}, backends: {images: [$b], deployRules: [{source: ".*", target: ".*"}]}, codeAsData: {updateMode: "manual"}, noDowntime: {promotionMode: "manual"}}')
status=$(curl -s -o /tmp/olympe-bench-response.json -w '%{http_code}' -X POST "$WEBHOOK_URL" \
  -H "Authorization: Bearer $WEBHOOK_TOKEN" -H 'Content-Type: application/json' -d "$payload")
[ "$status" = 200 ]
