#!/bin/sh
# Dies by a signal after printing an allow: still a deny.
cat > /dev/null
echo '{"decision": "allow"}'
kill -SEGV $$
