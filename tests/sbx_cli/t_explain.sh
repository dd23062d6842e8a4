#!/usr/bin/env bash
# sbx explain on the real profile table: every profile explains, aliases
# and names agree, and what it prints matches what sbx run enforces.
# (The byte-exact golden test of the explain text runs on a fixed table in
# sbx_units.)
source "$SBX_TEST_DIR/lib.sh"

profiles=$("$SBX" check | awk '/^Profiles/ {p=1; next} p && /^$/ {exit} p && /^  [^ ]/ {print $1}')
[[ -n $profiles ]] || { fail "no profiles"; finish; }
for p in $profiles; do
  run_sbx explain --profile "$p"
  expect_rc 0 "explain $p"
  for section in "^Profile $p" "^Shell: " "^Network: " "^File writes: " "^Default tier: " \
                 "^Allowed paths" "^Denied paths" "^Limits:" "wall-clock time" "^Approvals" \
                 "^System calls" "Any call not listed below: " "^Environment passed"; do
    grep -Eq "$section" <<<"$OUT" || fail "explain $p lacks /$section/"
  done
  alias=$(sed -n "s/^Profile $p (alias \(.*\))$/\1/p" <<<"$OUT")
  if [[ -n $alias ]]; then
    a=$("$SBX" explain --profile "$alias")
    [[ $a == "$OUT" ]] && pass "alias $alias explains as $p" || fail "alias $alias differs from $p"
  fi
  again=$("$SBX" explain --profile "$p")
  [[ $again == "$OUT" ]] || fail "explain $p is not deterministic"
done

# --bpf: the disassembly of exactly the filter sbx loads, as long as the
# plain explanation says.
for p in $profiles; do
  out=$("$SBX" explain --profile "$p" --bpf)
  n=$(sed -n 's/^System calls (x86_64 seccomp filter, \([0-9]*\) BPF instructions):$/\1/p' <<<"$out")
  begin=$(sed -n 's/^Begin BPF program (\([0-9]*\) instructions)$/\1/p' <<<"$out")
  lines=$(sed -n '/^Begin BPF program/,/^End BPF program/p' <<<"$out" | grep -c '^[0-9]\{4\} ')
  [[ -n $n && $n == "$begin" && $n == "$lines" ]] && pass "explain $p --bpf: $n instructions" ||
    fail "explain $p --bpf: header $n, Begin $begin, $lines lines"
  last=$(sed -n '/^End BPF program/{x;p};h' <<<"$out")
  [[ $last == *" ret "* ]] || fail "explain $p --bpf: last instruction is not a ret: $last"
done

# The default (no flag, no env) is strict; the env var is honoured.
d=$("$SBX" explain)
[[ $d == "$("$SBX" explain --profile strict)" ]] && pass "default explain is strict" || fail "default explain is not strict"

# Network: a profile explained as "none" really has no network.
net=$("$SBX" explain --profile strict | sed -n 's/^Network: *//p')
if [[ $net == none* ]]; then
  run_sbx run --profile strict -- cat /proc/net/dev
  if [[ $RC == 0 ]]; then
    ifaces=$(tail -n +3 <<<"$OUT" | awk -F: '{gsub(/ /, "", $1); print $1}' | grep -v '^lo$' | tr '\n' ' ')
    [[ -z $ifaces ]] && pass "strict: no interface but lo" || fail "strict explains no network, sees: $ifaces"
  else
    echo "note: /proc/net/dev not readable under strict ($RC)" >&2
  fi
fi

run_sbx explain --profile no-such
expect_rc 125 "explain of an unknown profile"
expect_err "unknown profile 'no-such'" "message names it"
finish
