#!/bin/sh
# t_dot_valid.sh PNETC SRC OUTDIR: every DOT view pnetc writes is accepted by
# Graphviz itself (dot -Tsvg), without a warning: the goldens only show the
# output is stable, this shows it is valid. Skipped (77) without graphviz.
set -u
PNETC=$1 SRC=$2 OUT=$3
command -v dot >/dev/null 2>&1 || { echo "SKIP: graphviz (dot) not installed"; exit 77; }
rm -rf "$OUT" && mkdir -p "$OUT" || exit 1
cd "$SRC" || exit 1
n=0
for model in models/default.pnet models/two_stage.pnet tests/pnetc_cli/data/*.pnet \
             tests/pnetc_cli/data/*.pnml tests/models/seed_literal.pnet; do
  [ -e "$model" ] || continue
  case $model in *bad_syntax*) continue ;; esac
  name=$(basename "$model")
  "$PNETC" --emit dot -o "$OUT/$name.dot" "$model" 2>/dev/null
  rc=$?
  # 0, or 1 when an assertion fails: the DOT is written either way.
  if [ $rc -gt 1 ]; then echo "FAIL: pnetc --emit dot $model exited $rc"; exit 1; fi
  if ! dot -Tsvg "$OUT/$name.dot" -o "$OUT/$name.svg" 2>"$OUT/$name.err"; then
    echo "FAIL: dot rejects the view of $model:"; cat "$OUT/$name.err"; exit 1
  fi
  if [ -s "$OUT/$name.err" ]; then
    echo "FAIL: dot warns about the view of $model:"; cat "$OUT/$name.err"; exit 1
  fi
  grep -q "<svg" "$OUT/$name.svg" || { echo "FAIL: no SVG for $model"; exit 1; }
  n=$((n + 1))
done
[ $n -ge 5 ] || { echo "FAIL: only $n models checked"; exit 1; }
echo "PASS: $n DOT views accepted by $(dot -V 2>&1)"
