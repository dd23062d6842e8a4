# Helpers to run tests against `sbx serve` (sourced, bash). Needs SBX, T
# (a private temporary directory) and SBX_STATE_DIR (private, 0700).
#   warm_start         starts the server (log: $T/serve.log), waits for its socket
#   warm_stop          stops it (SIGTERM to its pid only) and waits for it
#   warm_check_used    FAIL unless the server started at least one run warm
#   warm_count PATTERN lines of the server log matching PATTERN
WARM_SOCK="$SBX_STATE_DIR/serve-$(id -u)/serve.sock"
WARM_PID=

warm_start() {
  # Started from a subshell, so it is not a job of the test's shell: the
  # scripts' own `wait` must not wait for the server too.
  WARM_PID=$( ("$SBX" serve -v --idle 600 2>>"$T/serve.log" </dev/null >/dev/null & echo $!) )
  warm_up() { [[ -S $WARM_SOCK ]] || ! kill -0 "$WARM_PID" 2>/dev/null; }
  wait_for 60 warm_up && [[ -S $WARM_SOCK ]] && return 0
  echo "FAIL: sbx serve did not start: $(cat "$T/serve.log")" >&2
  return 1
}

warm_stop() {
  if [[ -n $WARM_PID ]]; then
    kill -TERM "$WARM_PID" 2>/dev/null
    wait_for 60 warm_gone "$WARM_PID"
    WARM_PID=
  fi
}

warm_gone() { ! kill -0 "$1" 2>/dev/null; }

warm_count() { grep -c -E -- "$1" "$T/serve.log" 2>/dev/null || true; }

warm_check_used() {
  local n
  n=$(warm_count "started warm")
  if ((n > 0)); then
    echo "ok: $n run(s) started warm"
  else
    echo "FAIL: no run started warm; server log: $(cat "$T/serve.log")" >&2
    FAILS=$((FAILS + 1))
  fi
}
