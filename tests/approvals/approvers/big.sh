#!/bin/sh
# A reply over the 64 KiB limit (an allow, padded): deny.
cat > /dev/null
printf '{"decision": "allow", "reason": "'
head -c 70000 /dev/zero | tr '\0' 'x'
printf '"}\n'
