#!/bin/bash
# Cost of the approval workflow's system-call layer per notified call:
# 1000 create+unlink pairs run plainly, and under the layer with an
# approver that grants the session on the first call (so the rest measure
# the supervisor: copy, ID_VALID, /proc handles, helper fork, unlinkat).
# Second table: the git-config part (write-opens notified, answered
# CONTINUE when they are not git configuration; no fork): the same
# workload with only its 1000 opens notified.
# Third table: sendmsg under `network` (every sendmsg performed by the
# supervisor's helper): 1000 loopback datagrams, nobody asked.
# Usage: bench_unotify.sh BUILD_DIR   (results: docs/performance.md)
set -eu
b=${1:?build dir}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
bulk=$b/tests/approvals/approvals_t_bulk
run=$b/tests/approvals/unotify_run
appr=$(cd "$(dirname "$0")" && pwd)/approvers/session.sh
hyperfine -N --warmup 2 --runs 10 \
  -n plain "$bulk $t 1000" \
  -n "unotify (session grant)" "$run exec:$appr delete -- $bulk $t 1000"
echo x > "$t/config"
hyperfine -N --warmup 2 --runs 10 \
  -n plain "$bulk $t 1000" \
  -n "git-config layer (1000 write-opens, CONTINUE)" \
     "$run --git-config $t/config none git-config -- $bulk $t 1000"
hyperfine -N --warmup 2 --runs 10 \
  -n plain "$bulk --udp 1000" \
  -n "network layer (1000 sendmsg performed)" "$run none network -- $bulk --udp 1000"
