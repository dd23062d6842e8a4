#!/bin/sh
# Not JSON: must be a deny, whatever the words say.
cat > /dev/null
echo 'allow'
