#!/bin/sh
# t_exit_codes.sh PNETC SRC OUTDIR: every exit status of docs/pnetc.md
# ("Exit status"), for each input kind pnetc reads: nets (.pnet), policies
# (.pol) and OCI seccomp profiles (.json). One mapping from a failure to
# its code serves all three, so the same failure must give the same code
# whatever the input: a full disk is 3 (a resource limit), an output that
# cannot be created is 2, bad input is 2, an assertion that does not hold
# is 1 (nets only: policies and OCI profiles state none).
pnetc=$1 src=$2 out=$3
[ -c /dev/full ] || { echo "SKIP: no /dev/full to fill" >&2; exit 77; }
rm -rf "$out" && mkdir -p "$out" || exit 1
cd "$src" || exit 1
fails=0 n=0

# case NAME WANT [>FILE] ARGS...: runs pnetc, requires exit WANT and, for
# a failure, a message on standard error. ">FILE" redirects stdout.
case_() {
  name=$1 want=$2
  shift 2
  stdout=$out/$name.stdout
  case $1 in ">"*) stdout=${1#>}; shift ;; esac
  n=$((n + 1))
  "$pnetc" "$@" > "$stdout" 2> "$out/$name.stderr"
  got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, expected $want: pnetc $*" >&2
    sed 's/^/  stderr: /' "$out/$name.stderr" >&2
    fails=$((fails + 1))
  elif [ "$want" -ne 0 ] && ! grep -q "error" "$out/$name.stderr"; then
    echo "FAIL $name: exit $got without an error message: pnetc $*" >&2
    fails=$((fails + 1))
  fi
}

net=models/default.pnet
pol=models/profiles.pol
oci=tests/bpf/data/overlap.json

# 0: done.
case_ net_ok 0 -q --check $net
case_ pol_ok 0 -q --check $pol
case_ oci_ok 0 -q --emit bpf -o "$out/oci_ok.bpf" $oci

# 1: an assertion does not hold.
case_ net_assertion 1 -q --check tests/models/seed_literal.pnet

# 2: bad input or usage, an output that cannot be created.
case_ net_bad_input 2 -q tests/pnetc_cli/data/bad_syntax.pnet
case_ pol_bad_input 2 -q tests/pol_frontend/diag/action_errors.pol
case_ oci_bad_input 2 -q --emit bpf -o "$out/oci_bad.bpf" tests/bpf/data/malformed.json
case_ net_unwritable 2 -q --emit json -o /proc/pnetc_exit_codes.json $net
case_ pol_unwritable 2 -q --emit bpf --profile strict -o /proc/pnetc_exit_codes.bpf $pol
case_ oci_unwritable 2 -q --emit bpf -o /proc/pnetc_exit_codes.bpf $oci
case_ net_missing_dir 2 -q --emit json -o "$out/none/x.json" $net
case_ pol_missing_dir 2 -q --emit disasm --profile strict -o "$out/none/x.txt" $pol
case_ oci_missing_dir 2 -q --emit disasm -o "$out/none/x.txt" $oci

# 3: a resource limit: the disk full while writing, to a named output or
# to standard output; the state limit (nets); the BPF size limit is
# tests/bpf/too_big.sh (bpf_pnetc_too_big).
case_ net_full_file 3 -q --emit json -o /dev/full $net
case_ pol_full_file 3 -q --emit disasm --profile strict -o /dev/full $pol
case_ oci_full_file 3 -q --emit disasm -o /dev/full $oci
case_ net_full_stdout 3 ">/dev/full" -q --emit json $net
case_ pol_full_stdout 3 ">/dev/full" -q --emit disasm --profile strict $pol
case_ oci_full_stdout 3 ">/dev/full" -q --emit disasm $oci
case_ net_state_limit 3 -q --check --max-states 10 $net

[ -e /proc/pnetc_exit_codes.json ] && { echo "FAIL: a file appeared in /proc" >&2; fails=$((fails + 1)); }
echo "$n cases, $fails failed"
[ "$fails" -eq 0 ]
