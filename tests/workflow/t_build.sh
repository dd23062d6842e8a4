#!/bin/bash
# workflow_build: an agent's edit-build-test loop under standard (issue 13):
# make runs cc, links, runs the program, a rebuild after an edit, and
# `make clean` removes what the run's own build made (free: nothing that
# existed before the run is lost), and what an earlier run made (free: no
# one's work but the runs'; docs/approvals.md); a Python module in the workspace is
# byte-compiled and imported. Each run exits 0 with sbx silent. The control
# of the deletion rule: `make distclean`, which removes a file that was
# there before the run, is refused without an approver and the file stays.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws="$tmp/ws"; mkdir -p "$ws"
err="$tmp/err"
source "$(dirname "$0")/workflow_lib.sh"
command -v make >/dev/null && command -v cc >/dev/null || skip "no make or cc"
workflow_preflight

cat >"$ws/Makefile" <<'MK'
CFLAGS = -O2 -Wall
hello: main.o greet.o
	$(CC) -o $@ main.o greet.o
%.o: %.c version.h
	$(CC) $(CFLAGS) -c $<
clean:
	rm -f hello *.o
MK
printf '#define VERSION "1"\n' >"$ws/version.h"
printf '#include <stdio.h>\nvoid greet(void);\nint main(void){greet();return 0;}\n' >"$ws/main.c"
printf '#include <stdio.h>\n#include "version.h"\nvoid greet(void){puts("hello " VERSION);}\n' >"$ws/greet.c"

# A fresh project: build and run (one run), sbx silent.
out=$(quiet "make && ./hello" sh -c 'make -s && ./hello') || exit 1
[ "$out" = "hello 1" ] || fail "./hello said: $out"
echo "ok: make with cc, the program run: exit 0, sbx silent"

# The whole loop in one run of a second fresh project: build, run, edit,
# incremental rebuild (as and ld remove their old outputs first: this
# run's own), run, make clean.
mkdir "$ws/p2"
cp "$ws/Makefile" "$ws/version.h" "$ws/main.c" "$ws/greet.c" "$ws/p2/"
out=$(in_dir="$ws/p2" quiet "build, edit, rebuild, clean: one run" sh -c \
  'make -s && ./hello && sed -i "s/hello /hi /" greet.c && make -s && ./hello && make -s clean') || exit 1
[ "$out" = "$(printf 'hello 1\nhi 1')" ] || fail "the loop said: $out"
[ ! -e "$ws/p2/hello" ] && [ ! -e "$ws/p2/main.o" ] || fail "make clean left its products"
echo "ok: build, edit, rebuild, clean in one run: exit 0, sbx silent"

# A LATER run's rebuild: as and ld remove their old outputs, which an
# earlier run made (existed before this run). Born and last changed while
# a run of this workspace was going (docs/approvals.md, "What earlier runs
# made"): removed unasked, sbx silent.
sed -i 's/hello /hey /' "$ws/greet.c"
out=$(quiet "a later run's incremental rebuild" sh -c 'make -s && ./hello') || exit 1
[ "$out" = "hey 1" ] || fail "a later run's rebuild said: $out"
echo "ok: a later run's incremental rebuild: exit 0, sbx silent"
out=$(quiet "a later run's make clean" sh -c 'make -s clean') || exit 1
[ ! -e "$ws/hello" ] && [ ! -e "$ws/main.o" ] || fail "a later run's make clean left its products"
echo "ok: a later run's make clean of an earlier run's products: exit 0, sbx silent"

# Controls. The record of earlier runs is one file per workspace in sbx's
# state directory; without it the same rebuild asks again.
state=${XDG_STATE_HOME:-$HOME/.local/state}
record="$state/commander-sandbox/made/$(printf '%x-%x' $(stat -c '%d %i' "$ws"))"
[ -f "$record" ] || fail "no record of earlier runs at $record"
head -1 "$record" | grep -qxF "workspace $ws" || fail "record names another directory: $(head -1 "$record")"
out=$(quiet "build" sh -c 'make -s && ./hello') || exit 1
mv "$record" "$record.saved"
sed -i 's/hey /yo /' "$ws/greet.c"
out=$(cd "$ws" && run -- sh -c 'make -s && ./hello' 2>"$err"); rc=$?
mv "$record.saved" "$record"
[ $rc = 0 ] && [ "$out" = "yo 1" ] || fail "rebuild without the record: exit $rc: $out $(cat "$err")"
grep -q '^sbx: approval: denied delete' "$err" ||
  fail "control: without the record a later run's rebuild asked nothing: $(cat "$err")"
echo "ok: control: without the record the same rebuild asks ($(grep -c '^sbx: approval: denied delete' "$err") removal(s) named)"
# An earlier run's output changed outside any run since (its change time
# moves: here chmod, as an edit or a rename would) is someone's: asked.
out=$(quiet "build" sh -c 'make -s') || exit 1
chmod 0644 "$ws/hello"
out=$(cd "$ws" && run -- sh -c 'rm hello' 2>"$err"); rc=$?
[ $rc != 0 ] && [ -e "$ws/hello" ] || fail "removed an earlier run's file changed outside a run since: exit $rc"
grep -q '^sbx: approval: denied delete' "$err" || fail "the refusal was not named: $(cat "$err")"
echo "ok: control: an earlier run's file changed outside a run since is asked about, refused, kept"

# Python: a package in the workspace, byte-compiled (__pycache__ written by
# rename) and imported.
mkdir -p "$ws/pkg"
printf 'def answer():\n    return 42\n' >"$ws/pkg/__init__.py"
out=$(quiet "python3 -m compileall + import" python3 -c 'import compileall, pkg; compileall.compile_dir("pkg", quiet=1); print(pkg.answer())') || exit 1
[ "$out" = 42 ] || fail "python said: $out"
[ -d "$ws/pkg/__pycache__" ] || fail "no __pycache__ on the host"
echo "ok: python3 compileall and import: exit 0, sbx silent"

# The control: version.h was there before the run.
out=$(cd "$ws" && run -- rm version.h 2>"$err"); rc=$?
[ $rc != 0 ] || fail "rm removed a file from before the run without asking: exit 0"
[ -e "$ws/version.h" ] || fail "version.h is gone"
grep -q '^sbx: ' "$err" || fail "the refusal was not named: $(cat "$err")"
echo "ok: control: removing version.h (there before the run) refused without an approver, kept"
