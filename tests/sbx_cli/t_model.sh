#!/usr/bin/env bash
# sbx run --model FILE.pnet (docs/sbx.md, "Your own policies and models"):
# admission through a user's own scheduler model with its own shared
# state. A one-slot model held by one run refuses a second (--no-wait);
# at the same time a different model (same name, two slots) and the
# linked default admit, so no two models share a state file. The model
# file passes the same trust checks as a policy, and a bad model is
# refused with file:line:col and a caret.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox

MOD="$T/models" # outside the repository and the workspace
mkdir -m 0700 "$MOD"
write_model() { # FILE SLOTS
  cat >"$1" <<MODEL
# One tier, $2 slot(s).
net onerun;
place pending source;
place seccomp_slots capacity $2 initial $2;
place executing_seccomp capacity $2;
place completed sink;
admission admit_seccomp: pending + seccomp_slots -> executing_seccomp;
progress complete_seccomp: executing_seccomp -> completed + seccomp_slots;
assert invariant seccomp_slots + executing_seccomp == $2;
assert no deadlock;
MODEL
  chmod 0644 "$1"
}
write_model "$MOD/one.pnet" 1
write_model "$MOD/two.pnet" 2

run_sbx run --audit "$T/audit.log" --model "$MOD/one.pnet" --profile strict -- true
expect_rc 0 "a run admitted by the user's model"
got=$(audit_field "$T/audit.log" 'r["admission"].get("model_file")')
[[ $got == "$(realpath "$MOD/one.pnet")" ]] && pass "audit record names the model file" ||
  fail "audit model_file '$got'"
got=$(audit_field "$T/audit.log" 'r["admission"]["model"]')
[[ $got == onerun ]] && pass "audit record names the model" || fail "audit model '$got'"
ls "$SBX_STATE_DIR"/user-"$(id -u)"-onerun-*.state >/dev/null 2>&1 &&
  pass "the model's state file is keyed by uid and digest" || fail "state files: $(ls "$SBX_STATE_DIR")"

# Hold the one slot: the command signals it runs, then waits on a FIFO.
mkfifo "$WS/release"
"$SBX" run --model "$MOD/one.pnet" --profile standard -- \
  sh -c 'echo up >running; read x <release' >"$T/held.out" 2>"$T/held.err" &
held=$!
for _ in $(seq 6000); do [[ -s $WS/running ]] && break; kill -0 $held 2>/dev/null || break; sleep 0.1; done
[[ -s $WS/running ]] || { fail "the holding run never started: $(cat "$T/held.err")"; finish; }

run_sbx run --no-wait --model "$MOD/one.pnet" --profile strict -- true
expect_rc 125 "the one-slot model refuses a second run"
expect_err "admission refused.*model 'onerun'.*one.pnet" "the refusal names the user's model"
run_sbx run --no-wait --model "$MOD/two.pnet" --profile strict -- true
expect_rc 0 "another model of the same name does not share the state"
run_sbx run --no-wait --profile strict -- true
expect_rc 0 "the linked model does not share the state"
n=$(ls "$SBX_STATE_DIR"/user-"$(id -u)"-onerun-*.state | wc -l)
[[ $n == 2 ]] && pass "two models, two state files" || fail "$n state files for two models"

echo go >"$WS/release"
wait $held
rc=$?
[[ $rc == 0 ]] && pass "the holding run ends" || fail "holding run: exit $rc: $(cat "$T/held.err")"
run_sbx run --no-wait --model "$MOD/one.pnet" --profile strict -- true
expect_rc 0 "control: the freed slot admits again"

# Trust: the same checks as a policy.
chmod o+w "$MOD/one.pnet"
run_sbx run --model "$MOD/one.pnet" --profile strict -- true
expect_rc 125 "a world-writable model"
expect_err "model: .*one.pnet: is writable by every user" "names the layer and why"
run_sbx run --audit "$T/refused.log" --model "$MOD/one.pnet" --profile strict -- true
expect_rc 125 "a world-writable model, with an audit log"
got=$(audit_field "$T/refused.log" '(r["result"]["error"], r["admission"].get("model_file"))')
[[ $got == "('model refused (--model)', '$MOD/one.pnet')" ]] &&
  pass "the refusal is recorded with the file" || fail "record of the refusal: $got"
chmod o-w "$MOD/one.pnet"
cp "$MOD/one.pnet" "$WS/one.pnet"
run_sbx run --model "$WS/one.pnet" --profile strict -- true
expect_rc 125 "a model inside the workspace"
expect_err "lies inside the workspace" "says why"

# Bad models.
printf 'net bad;\nplace a capacity 2 initial 1\n' >"$MOD/syntax.pnet"
run_sbx run --model "$MOD/syntax.pnet" --profile strict -- true
expect_rc 125 "a model with a syntax error"
expect_err "syntax.pnet:[0-9]+:[0-9]+: error" "file:line:col"
expect_err "^ *\^" "a caret"
printf 'net bad;\nplace a capacity 2 initial 1;\nassert invariant a == 2;\n' >"$MOD/false.pnet"
run_sbx run --model "$MOD/false.pnet" --profile strict -- true
expect_rc 125 "a model whose assertion does not hold"
expect_err "false.pnet:3:1: error: invariant assertion does not hold" "names the assertion"
printf 'include "one.pnet";\n' >"$MOD/inc.pnet"
run_sbx run --model "$MOD/inc.pnet" --profile strict -- true
expect_rc 125 "a model that includes another file"
finish
