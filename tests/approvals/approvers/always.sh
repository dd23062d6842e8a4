#!/bin/sh
cat > /dev/null
[ -n "$APPROVAL_LOG" ] && echo asked >> "$APPROVAL_LOG"
echo '{"decision": "allow", "scope": "always"}'
