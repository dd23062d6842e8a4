#!/bin/bash
# Cost of the approval workflow's system-call layer per notified call:
# 1000 create+unlink pairs run plainly, and under the layer with an
# approver that grants the session on the first call (so the rest measure
# the supervisor: copy, ID_VALID, /proc handles, helper fork, unlinkat).
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
