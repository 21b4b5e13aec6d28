#!/bin/sh
# Read {"max_size": "500M"} or {"max_age": "2w"} on stdin and vacuum the journal.
# Prints disk usage before and after so the operator sees the effect.
set -eu
args=$(cat)
size=$(printf '%s' "$args" | jq -r '.max_size // empty')
age=$(printf '%s' "$args" | jq -r '.max_age // empty')
journalctl --disk-usage
if [ -n "$size" ]; then
    journalctl --vacuum-size="$size"
else
    journalctl --vacuum-time="$age"
fi
journalctl --disk-usage
