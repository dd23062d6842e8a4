#!/bin/sh
# Reads the request, appends it to $APPROVAL_LOG when set, allows.
req=$(cat)
[ -n "$APPROVAL_LOG" ] && printf '%s\n' "$req" >> "$APPROVAL_LOG"
echo '{"decision": "allow"}'
