#!/bin/sh
# JSON, but "decision" is not exactly "allow"/"deny".
cat > /dev/null
echo '{"decision": "yes"}'
