#!/bin/sh
# Runs a confinement suite as the unprivileged user nobody, so sbx must
# build the sandbox inside a user namespace. Skips (77) unless run as root
# (only root can switch to nobody here) or when the build tree is not
# readable by nobody.
set -eu
setpriv=$1 driver=$2 suite=$3
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: needs root to switch to nobody (already unprivileged: the plain suites cover it)"
  exit 77
fi
if ! "$setpriv" --reuid=65534 --regid=65534 --clear-groups test -x "$driver"; then
  echo "SKIP: $driver is not executable by nobody"
  exit 77
fi
exec "$setpriv" --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$driver" "$suite"
