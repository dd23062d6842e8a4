#!/bin/sh
# Lists the integer macros of pol_consts_headers.h the .pol language knows
# by name, one POL_CONST(NAME) line each, sorted (so the table is
# deterministic and can be binary-searched).
# Usage: pol_consts_gen.sh CC HEADER OUT
set -eu
cc=$1
header=$2
out=$3
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# Only macros whose value is a plain integer expression: names with these
# prefixes are integer constants in these headers, except the few listed
# in the exclusion (pointers, or types the headers leave incomplete).
"$cc" -E -dM -D_GNU_SOURCE -include "$header" -x c /dev/null |
  awk '
    $1 != "#define" { next }
    $2 ~ /\(/ { next }                        # function-like macro
    $2 ~ /^(MAP_FAILED|MAP_HUGE_SHIFT|MAP_HUGE_MASK|TIOC[GS]ISO7816|TC[A-Z]+2|TCGETX|TCSETX[FW]?)$/ { next }   # pointer, or a type the headers leave incomplete
    $2 ~ /^E[A-Z0-9]+$/ && NF == 3 && ($3 ~ /^[0-9]+$/ || $3 ~ /^E[A-Z0-9]+$/) { print $2; next }
    $2 ~ /^(TIOC[A-Z0-9_]+|TC[A-Z0-9_]+|FIO[A-Z0-9_]+|AF_[A-Z0-9_]+|SOCK_[A-Z0-9_]+|NETLINK_[A-Z0-9_]+|CLONE_[A-Z0-9_]+|PR_[A-Z0-9_]+|O_[A-Z0-9_]+|F_[A-Z0-9_]+|PROT_[A-Z0-9_]+|MAP_[A-Z0-9_]+|MADV_[A-Z0-9_]+|IPPROTO_[A-Z0-9_]+|IPV6_[A-Z0-9_]+|IP_[A-Z0-9_]+|SOL_[A-Z0-9_]+|S_I[A-Z0-9_]+)$/ && NF >= 3 { print $2 }
  ' | LC_ALL=C sort -u | sed 's/.*/POL_CONST(&)/' >"$tmp"
test -s "$tmp"
mv "$tmp" "$out"
trap - EXIT
