#!/bin/sh
# Allows for the session; logs every call so the test counts them.
cat > /dev/null
[ -n "$APPROVAL_LOG" ] && echo asked >> "$APPROVAL_LOG"
echo '{"decision": "allow", "scope": "session"}'
