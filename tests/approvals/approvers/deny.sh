#!/bin/sh
cat > /dev/null
echo '{"decision": "deny", "reason": "test says no"}'
