#!/bin/sh
# expect_exit.sh CODE OUTPUT -- COMMAND...: runs COMMAND, requires exit CODE
# and, unless CODE is 0, that OUTPUT was not created (no partial file).
want=$1 out=$2
shift 3
rm -f "$out"
"$@" >/dev/null 2>"$out.stderr"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "exit $got, expected $want: $*" >&2
  cat "$out.stderr" >&2
  exit 1
fi
if [ "$want" -ne 0 ] && [ -e "$out" ]; then
  echo "failed run left $out behind" >&2
  exit 1
fi
if [ "$want" -eq 0 ] && [ ! -s "$out" ]; then
  echo "no output $out" >&2
  exit 1
fi
grep -q "error:" "$out.stderr" || [ "$want" -eq 0 ] || { echo "no error message" >&2; exit 1; }
exit 0
