#!/bin/bash
# approvals_network: connect(), sendto(), sendmsg() and sendmmsg() to a
# non-loopback address are
# approved or refused by the supervisor; loopback is never asked about.
# Everything happens inside a new network namespace where 198.51.100.1
# (TEST-NET-2) is a local address: nothing real is ever contacted.
set -u
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/netns.sh" "$0"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$("$UNOTIFY_RUN" "exec:$APPROVERS/allow.sh" network -- /bin/true 2>&1); rc=$?
[ $rc = 77 ] && { echo "SKIP: $out"; exit 77; }

# The listeners at 198.51.100.1 are bound outside the supervised program
# (listen_at.py): binding that address inside is asked about (below).
listen_at() { python3 "$(dirname "$0")/listen_at.py" "$@"; }
out=$(listen_at 198.51.100.1 4242 "$UNOTIFY_RUN" "exec:$APPROVERS/allow.sh" network -- "$T_CONNECT" 198.51.100.1 4242 2>"$tmp/err") || fail "allow: $out"
echo "$out"; grep -q "^connect: ok (accepted yes)" <<<"$out" || fail "allowed connect did not connect"
grep -q "^sendto: ok (received 2)" <<<"$out" || fail "allowed sendto did not arrive"
grep -q "address=198.51.100.1:4242 decision=allow" "$tmp/err" || fail "no allow record: $(cat "$tmp/err")"
# Asked four times: connect, sendto, sendmsg, and sendmmsg once for its
# two datagrams to the same address.
[ "$(grep -c "^record: op=network .*address=198.51.100.1:4242 decision=allow" "$tmp/err")" = 4 ] ||
  fail "expected 4 questions: $(cat "$tmp/err")"
grep -q "^sendmsg: ok (received 9, intact)" <<<"$out" || fail "allowed sendmsg did not arrive intact"
grep -q "^sendmmsg: ok (lens 3 6, intact)" <<<"$out" || fail "allowed sendmmsg did not arrive intact"
grep -q "^scm_rights: ok (descriptor works)" <<<"$out" || fail "SCM_RIGHTS through the supervisor broken"
grep -q "^scm_credentials: Operation not permitted" <<<"$out" || fail "SCM_CREDENTIALS not refused"
grep -q "SCM_CREDENTIALS refused" "$tmp/err" || fail "no message for SCM_CREDENTIALS: $(cat "$tmp/err")"

for a in deny.sh garbage.sh hang.sh; do
  out=$(listen_at 198.51.100.1 4243 "$UNOTIFY_RUN" --timeout 300 "exec:$APPROVERS/$a" network -- "$T_CONNECT" 198.51.100.1 4243 2>"$tmp/err") || fail "$a: $out"
  grep -q "^connect: Operation not permitted" <<<"$out" || fail "$a: connect not refused: $out"
  grep -q "^sendto: Operation not permitted" <<<"$out" || fail "$a: sendto not refused: $out"
  grep -q "^sendmsg: Operation not permitted" <<<"$out" || fail "$a: sendmsg not refused: $out"
  grep -q "sbx: approval: denied send to 198.51.100.1:4243 (sendmsg(2) (system-call layer)" "$tmp/err" ||
    fail "$a: no denial message for sendmsg: $(cat "$tmp/err")"
  grep -q "^sendmmsg: Operation not permitted" <<<"$out" || fail "$a: sendmmsg not refused: $out"
  # A unix socket pair never leaves the machine: not asked, still works.
  grep -q "^scm_rights: ok (descriptor works)" <<<"$out" || fail "$a: unix sendmsg refused: $out"
  echo "$a: refused"
done

# Loopback: never asked (a deny-everything approver does not matter).
out=$("$UNOTIFY_RUN" "exec:$APPROVERS/deny.sh" network -- "$T_CONNECT" 127.0.0.1 4244 2>"$tmp/err") || fail "loopback: $out"
grep -q "^connect: ok (accepted yes)" <<<"$out" || fail "loopback connect refused: $out"
grep -q "^sendmsg: ok (received 9, intact)" <<<"$out" && grep -q "^sendmmsg: ok (lens 3 6, intact)" <<<"$out" ||
  fail "loopback sendmsg/sendmmsg: $out"
grep -q "record:" "$tmp/err" && fail "loopback was asked about"
echo PASS
