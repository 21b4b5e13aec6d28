#!/bin/sh
# Read {"paths": [...], "top_n": N} on stdin; print the largest entries per path.
# Read-only: uses du on one filesystem, never follows into /proc or /sys.
set -eu
args=$(cat)
top_n=$(printf '%s' "$args" | jq -r '.top_n // 10')
printf '%s' "$args" | jq -r '.paths[]' | while IFS= read -r path; do
    case "$path" in
        /proc*|/sys*|/dev*) echo "skipped virtual filesystem: $path"; continue ;;
    esac
    echo "== $path"
    du -x -k -d 1 "$path" 2>/dev/null | sort -rn | head -n "$top_n"
done
