#!/usr/bin/env bash
# .ci/check-layout on the real tree (it must pass) and on small made-up
# trees that break each rule it checks (it must fail, naming the rule):
# the negative controls that show the check would catch a real violation.
set -u
check=${SBX_SRC:?}/.ci/check-layout
T=$(mktemp -d /tmp/layout-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0 passes=0
pass() { echo "ok: $1"; passes=$((passes + 1)); }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }

out=$(python3 "$check" "$SBX_SRC" 2>&1) && pass "the tree follows docs/architecture.md" ||
  fail "the tree: $out"

# A tree of two folders: dsl/low (may include nothing) and dsl/high (may
# include dsl/low). Each case breaks one rule in a fresh copy.
base() {
  rm -rf "$T/t" && mkdir -p "$T/t/docs" "$T/t/dsl/low" "$T/t/dsl/high"
  cat >"$T/t/docs/architecture.md" <<'DOC'
<!-- layout:begin -->
| folder | job | may include |
|---|---|---|
| `dsl/low` | low | nothing |
| `dsl/high` | high | `dsl/low` |
<!-- layout:end -->
DOC
  echo '#include "low.h"' >"$T/t/dsl/low/low.c"
  echo 'int low(void);' >"$T/t/dsl/low/low.h"
  printf '#include "high.h"\n#include "low.h"\n' >"$T/t/dsl/high/high.c"
  echo 'int high(void);' >"$T/t/dsl/high/high.h"
}
expect() { # WHAT REGEX: the check fails and says REGEX
  local out
  if out=$(python3 "$check" "$T/t" 2>&1); then
    fail "$1: passed"
  elif [[ $out =~ $2 ]]; then
    pass "$1"
  else
    fail "$1: said: $out"
  fi
}
base
out=$(python3 "$check" "$T/t" 2>&1) && pass "a good made-up tree passes" || fail "good tree: $out"
base; echo '#include "high.h"' >>"$T/t/dsl/low/low.c"
expect "an upward include" "dsl/low may not include dsl/high"
base; echo '#include "../low/low.h"' >>"$T/t/dsl/high/high.c"
expect "a ../ include" 'spells a path'
base; mkdir -p "$T/t/dsl/stray"; echo 'int s;' >"$T/t/dsl/stray/s.c"
expect "a file in no stated folder" 'in no folder that docs/architecture.md states'
base; sed -i 's/| `dsl\/low` | low | nothing |/| `dsl\/low` | low | `dsl\/high` |/' "$T/t/docs/architecture.md"
expect "stated directions with a circle" 'stated directions form a circle'
base; echo 'add_library(x ../high/high.c)' >"$T/t/dsl/low/CMakeLists.txt"
expect "a build file compiling another folder's source" 'compiles a source of another folder'
base; echo 'cmake_language(DEFER CALL f)' >"$T/t/dsl/low/CMakeLists.txt"
expect "a deferred call" 'DEFER'
echo "$passes passed, $fails failed"
((fails == 0))
