#!/bin/sh
# Read {"host": "...", "ports": [...], "timeout_ms": N} on stdin.
# For each port print "port open|closed seconds". Opens and closes a connection only.
set -eu
args=$(cat)
host=$(printf '%s' "$args" | jq -r '.host')
timeout_s=$(printf '%s' "$args" | jq -r '((.timeout_ms // 2000) / 1000) | ceil')
for port in $(printf '%s' "$args" | jq -r '.ports[]'); do
    start=$(date +%s.%N)
    if nc -z -w "$timeout_s" "$host" "$port" 2>/dev/null; then state=open; else state=closed; fi
    end=$(date +%s.%N)
    printf '%s %s %.3f\n' "$port" "$state" "$(echo "$end - $start" | bc)"
done
