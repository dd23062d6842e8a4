#!/bin/sh
# Never answers; the manager kills it at the timeout.
cat > /dev/null
sleep 1000
