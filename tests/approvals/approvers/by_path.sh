#!/bin/sh
# Allows a request whose path ends in /victim, denies everything else;
# logs the path it allowed. (Matches the request's JSON text: the test
# controls every path, none contains a quote or a backslash.)
req=$(cat)
path=${req#*\"path\":\"}
path=${path%%\"*}
case "$path" in
  */victim) [ -n "$APPROVAL_LOG" ] && echo "$path" >> "$APPROVAL_LOG"
            echo '{"decision": "allow"}' ;;
  *) echo '{"decision": "deny"}' ;;
esac
