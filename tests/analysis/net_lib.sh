# Shared set-up of the analysis test scripts that check a generated
# benchmark net (sourced, bash, after `set -euo pipefail`):
#   net_setup GEN_NETS MODEL N   skips (77) without python3, makes $tmp
#                                (removed on exit) and $tmp/net.pnml
#   net_stat PN_STAT OUT         runs pn_stat on it into OUT; sets $rc
#                                (1 is "an assertion fails", not an error)
net_setup() {
  command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 "$1" "$2" "$3" -o "$tmp/net.pnml"
}

net_stat() {
  set +e
  "$1" "$tmp/net.pnml" >"$2"
  rc=$?
  set -e
}
