#!/usr/bin/env bash
# Per-run settings (issue 13): --env NAME=VALUE and --pass-env NAME, which
# never let a loader variable, one of sbx's own or the name of a secret
# in (each refusal names its rule, nothing runs); --cwd inside the
# workspace (symlinks resolved) with the caller's directory as default;
# --run-id in the audit record and in an approval request. Each refusal
# has its negative control: the same run with an innocent name, or a
# directory inside, succeeds.
source "$SBX_TEST_DIR/lib.sh"
require_sandbox
# standard: the workspace is writable, so "nothing ran" (no marker file)
# means something; under strict a touch could never leave one.
export COMMANDER_SECURITY_PROFILE=standard
LOG="$T/audit.log"
export SBX_APPROVAL_STORE="$T/store.json"
marker="$WS/marker"

# --env: set, a value with '=' kept whole, the last one wins, an
# allowlisted variable overridden.
run_sbx run --env MY_SETTING=a=b --env OTHER=1 --env OTHER=2 --env LANG=C.x -- \
  printenv MY_SETTING OTHER LANG
expect_rc 0 "--env sets variables"
[[ $OUT == "a=b"$'\n'"2"$'\n'"C.x" ]] && pass "--env values as given, last one wins" || fail "--env: got '$OUT'"

# --pass-env: the caller's variable enters only when named.
export MY_PASSED=from-caller
run_sbx run -- printenv MY_PASSED
[[ $RC == 1 && -z $OUT ]] && pass "an unnamed variable stays out" || fail "MY_PASSED leaked: '$OUT'"
run_sbx run --pass-env MY_PASSED -- printenv MY_PASSED
expect_rc 0 "--pass-env of an innocent name"
[[ $OUT == "from-caller" ]] && pass "--pass-env passes the caller's value" || fail "--pass-env: '$OUT'"

# Refused names: the rule is named, the command never runs. Each class:
# secret (word or part of a word, any case), loader, sbx's own.
export GITHUB_TOKEN=ghp_supersecret AWS_SECRET_ACCESS_KEY=aws-supersecret PGPASSWORD=pg-supersecret
export SSH_AUTH_SOCK=/tmp/agent.sock npm_config__authToken=npm-supersecret
for name in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY PGPASSWORD SSH_AUTH_SOCK npm_config__authToken; do
  rm -f "$marker"
  run_sbx run --audit "$LOG" --pass-env "$name" -- touch "$marker"
  expect_rc 125 "--pass-env $name refused"
  expect_err "--pass-env $name: refused by env rule 'secret'" "the refusal of $name names the rule"
  [[ ! -e $marker ]] && pass "nothing ran for $name" || fail "the command ran with $name"
  grep -q supersecret "$LOG" && fail "a secret value reached the audit log"
done
[[ $(audit_field "$LOG" "[d['layer'] + ':' + d['what'] for d in r['denials']]") == "['env:npm_config__authToken']" ]] &&
  pass "the record has the env denial with the name" || fail "denial: $(tail -1 "$LOG")"
for spec in "LD_PRELOAD=/x.so:loader" "LD_LIBRARY_PATH=/x:loader" "GLIBC_TUNABLES=x=1:loader" \
            "GCONV_PATH=/x:loader" "PATH=/x:sbx" "HOME=/x:sbx" "PWD=/x:sbx" \
            "DEPLOY_KEY=k:secret" "API_TOKEN=t:secret"; do
  rule=${spec##*:}; assign=${spec%:*}; name=${assign%%=*}
  rm -f "$marker"
  run_sbx run --env "$assign" -- touch "$marker"
  expect_rc 125 "--env $name refused"
  expect_err "--env $name: refused by env rule '$rule'" "the refusal of $name names rule '$rule'"
  [[ ! -e $marker ]] || fail "the command ran with --env $name"
done
run_sbx run --pass-env LD_PRELOAD -- true
expect_rc 125 "--pass-env LD_PRELOAD refused"
# The negative control of the name rules: words that only resemble a
# secret's (AUTHOR is not AUTH, KEYBOARD is not KEY) pass.
run_sbx run --env GIT_AUTHOR_NAME=me --env KEYBOARD_LAYOUT=us -- printenv GIT_AUTHOR_NAME KEYBOARD_LAYOUT
expect_rc 0 "innocent names that resemble a secret's"
[[ $OUT == "me"$'\n'"us" ]] || fail "innocent names: '$OUT'"
for bad in NOEQUALS 1X=y =v "A-B=c"; do
  run_sbx run --env "$bad" -- true
  expect_rc 125 "--env '$bad' malformed"
done
run_sbx run --pass-env "A=B" -- true
expect_rc 125 "--pass-env with '='"

# The audit record: names of --pass-env (never their values), names and
# values of --env.
run_sbx run --audit "$LOG" --run-id step-7.a --env MY_SETTING=v1 --pass-env MY_PASSED \
  --pass-env MY_NOT_SET -- true
expect_rc 0 "a run with every setting"
[[ $(audit_field "$LOG" "r['env']") == "{'set': {'MY_SETTING': 'v1'}, 'passed': ['MY_PASSED'], 'not_set': ['MY_NOT_SET']}" ]] &&
  pass "record: env set, passed, not set" || fail "record env: $(tail -1 "$LOG")"
tail -1 "$LOG" | grep -q from-caller && fail "a --pass-env value reached the audit log"
[[ $(audit_field "$LOG" "r['run_id']") == "step-7.a" ]] && pass "record: run_id" || fail "no run_id"
[[ $(audit_field "$LOG" "r['cwd']") == "$WS" ]] && pass "record: cwd" || fail "record cwd"
for bad in "" "a b" 'x$(id)' "$(printf 'a%.0s' {1..129})"; do
  run_sbx run --run-id "$bad" -- true
  expect_rc 125 "--run-id '${bad:0:12}' refused"
done

# --cwd: inside the workspace (relative to it), and PWD agrees.
mkdir -p "$WS/sub/deeper" "$T/outside"
ln -s "$T/outside" "$WS/out-link"
ln -s sub/deeper "$WS/in-link"
echo x >"$WS/afile"
run_sbx run --cwd sub -- pwd
expect_rc 0 "--cwd sub"
[[ $OUT == "$WS/sub" ]] && pass "--cwd sub: pwd" || fail "--cwd sub: '$OUT'"
run_sbx run --cwd sub -- printenv PWD
[[ $OUT == "$WS/sub" ]] && pass "--cwd sub: PWD agrees" || fail "--cwd sub: PWD '$OUT'"
run_sbx run --cwd in-link -- pwd
[[ $RC == 0 && $OUT == "$WS/sub/deeper" ]] && pass "--cwd through a symlink that stays inside" ||
  fail "--cwd in-link: $RC '$OUT' $ERR"
run_sbx run --cwd "$WS/sub/deeper" -- pwd
[[ $RC == 0 && $OUT == "$WS/sub/deeper" ]] && pass "--cwd absolute inside" || fail "--cwd abs: '$OUT'"
for spec in "out-link:outside the workspace" "..:outside the workspace" "/:outside the workspace" \
            "$T/outside:outside the workspace" "nope:No such file" "afile:not a directory"; do
  dir=${spec%%:*}; why=${spec#*:}
  rm -f "$marker"
  run_sbx run --audit "$LOG" --cwd "$dir" -- touch "$marker"
  expect_rc 125 "--cwd $dir refused"
  expect_err "--cwd .*$why" "--cwd $dir: says '$why'"
  [[ ! -e $marker ]] || fail "the command ran with --cwd $dir"
done
[[ $(audit_field "$LOG" "r['result']['error']") == "--cwd unusable or outside the workspace" ]] &&
  pass "record: the --cwd refusal" || fail "record: $(tail -1 "$LOG")"
# Default: the caller's directory inside the workspace, else its root.
(cd "$WS/sub" && "$SBX" run --workspace "$WS" -- pwd) >"$T/pwd" 2>&1
[[ $(cat "$T/pwd") == "$WS/sub" ]] && pass "default: the caller's directory inside" || fail "default inside: $(cat "$T/pwd")"
(cd "$T/outside" && "$SBX" run --workspace "$WS" -- pwd) >"$T/pwd" 2>&1
[[ $(cat "$T/pwd") == "$WS" ]] && pass "default: the root when the caller is outside" || fail "default outside: $(cat "$T/pwd")"
(cd "$WS/out-link" && "$SBX" run --workspace "$WS" -- pwd) >"$T/pwd" 2>&1
[[ $(cat "$T/pwd") == "$WS" ]] && pass "default: a symlinked way out counts as outside" || fail "default via link: $(cat "$T/pwd")"
# A directory the profile denies (~/.ssh, masked in the view) is refused
# as a working directory even inside the workspace; its sibling is not.
mkdir -p "$WS/.ssh" "$WS/.sshx"
HOME="$WS" run_sbx run --profile strict --cwd .ssh -- true
expect_rc 125 "--cwd into a denied path"
expect_err "which the view hides \(denied path rule\)" "the refusal names the denied path"
HOME="$WS" run_sbx run --profile strict --cwd .sshx -- pwd
[[ $RC == 0 && $OUT == "$WS/.sshx" ]] && pass "its sibling is fine" || fail "--cwd .sshx: $RC $ERR"

# --run-id in the approval request's JSON (exec approver sees it on stdin).
cat >"$T/approver.sh" <<APPR
#!/bin/sh
cat >"$T/request.json"
echo '{"decision": "deny", "reason": "test"}'
APPR
chmod +x "$T/approver.sh"
run_sbx run --profile standard --run-id agent-42 --approver "exec:$T/approver.sh" -- rm "$WS/afile"
expect_rc 125 "rm denied by the test approver"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r.get("run_id") != "agent-42")' \
  "$T/request.json" && pass "the approval request carries run_id" || fail "request: $(cat "$T/request.json")"
run_sbx run --profile standard --approver "exec:$T/approver.sh" -- rm "$WS/afile"
grep -q run_id "$T/request.json" && fail "run_id in a request without --run-id" || pass "no run_id when none was given"
[[ -e $WS/afile ]] || fail "denied rm removed the file"
# The approver is shown what a relative argument names from --cwd, not
# from the workspace root (where a file of the same name also exists).
echo y >"$WS/sub/afile"
run_sbx run --profile standard --cwd sub --approver "exec:$T/approver.sh" -- rm afile
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r.get("targets") != [sys.argv[2]])' \
  "$T/request.json" "$WS/sub/afile" && pass "targets resolved from --cwd" || fail "targets: $(cat "$T/request.json")"
# The request's context: where the run is (workspace, cwd) and, for a
# command-level deletion, path = its first target instead of null.
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); ws=sys.argv[2]
sys.exit(not (r.get("workspace") == ws and r.get("cwd") == ws + "/sub" and r.get("path") == ws + "/sub/afile"))' \
  "$T/request.json" "$(realpath "$WS")" && pass "the request carries workspace, cwd and the deletion's path" ||
  fail "request context: $(cat "$T/request.json")"
[[ -e $WS/sub/afile && -e $WS/afile ]] || fail "denied rm removed a file"
finish
