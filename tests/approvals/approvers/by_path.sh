#!/bin/sh
# Allows a request whose path ends in /victim, denies everything else;
# logs the path it allowed.
req=$(cat)
path=$(printf '%s' "$req" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("path") or "")')
case "$path" in
  */victim) [ -n "$APPROVAL_LOG" ] && echo "$path" >> "$APPROVAL_LOG"
            echo '{"decision": "allow"}' ;;
  *) echo '{"decision": "deny"}' ;;
esac
