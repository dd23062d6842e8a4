#!/bin/sh
cat > /dev/null
echo '{"decision": "allow"}'
exit 3
