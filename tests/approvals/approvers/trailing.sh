#!/bin/sh
# A valid reply followed by more text: not one JSON object, deny.
cat > /dev/null
echo '{"decision": "allow"} {"decision": "allow"}'
