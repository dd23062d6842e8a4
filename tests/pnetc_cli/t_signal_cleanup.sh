#!/bin/sh
# t_signal_cleanup.sh PNETC SRC OUTDIR: pnetc killed while its outputs are
# temporary files must leave none behind (gen/text/out_file.c signal handler).
#
# How the kill lands at the right moment, deterministically: the depfile is
# a FIFO with no reader, so pnetc blocks opening it after NAME.c and NAME.h
# were written to their temporary files and before anything is renamed.
set -u
PNETC=$1 SRC=$2 OUT=$3
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
mkfifo "$OUT/deps.d" || exit 1
cd "$SRC" || exit 1
"$PNETC" -q -o "$OUT" --depfile "$OUT/deps.d" models/default.pnet &
pid=$!
i=0
while [ "$(find "$OUT" -name '.default.*.tmp.*' | wc -l)" -lt 2 ]; do
  i=$((i + 1))
  if [ $i -gt 100 ]; then
    echo "FAIL: pnetc never created its temporary files"; kill -KILL $pid; exit 1
  fi
  sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
if [ $rc -ne 143 ]; then echo "FAIL: pnetc exited $rc, expected death by SIGTERM (143)"; exit 1; fi
left=$(find "$OUT" -name '.*.tmp.*')
if [ -n "$left" ]; then echo "FAIL: temporary files left behind: $left"; exit 1; fi
for f in default.c default.h; do
  if [ -e "$OUT/$f" ]; then echo "FAIL: $f exists after an interrupted run"; exit 1; fi
done
echo PASS
