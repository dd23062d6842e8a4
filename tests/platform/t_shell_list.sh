#!/usr/bin/env bash
# t_shell_list.sh SOURCE_ROOT: the shells gen/platform withholds from a
# shell-less profile (platform_shell_names) are exactly the ones sbx masks
# (runtime/plan/sbx_plan_shells.c, sbx_shell_names): gen/ may not include
# runtime/plan, so the list is written twice and this keeps the copies equal.
set -u
root=$1
names() { # FILE ARRAY: the quoted strings of one C array initializer
  sed -n "/$2\[\] = {/,/NULL };/p" "$1" | grep -o '"[^"]*"' | tr -d '"' | sort
}
sbx=$(names "$root/runtime/plan/sbx_plan_shells.c" sbx_shell_names)
plat=$(names "$root/gen/platform/platform_policy.c" platform_shell_names)
checker=$(sed -n '/^static const char \*const shells\[\] = {/,/NULL };/p' \
  "$root/tests/platform/sbpl_check.c" | grep -o '"[^"]*"' | tr -d '"' | sort)
[ -n "$sbx" ] || { echo "FAIL: no shell names found in sbx_plan_shells.c"; exit 1; }
[ "$sbx" = "$plat" ] || { echo "FAIL: gen/platform's shells differ from sbx's:"; diff <(echo "$sbx") <(echo "$plat"); exit 1; }
[ "$sbx" = "$checker" ] || { echo "FAIL: sbpl_check's shells differ from sbx's:"; diff <(echo "$sbx") <(echo "$checker"); exit 1; }
echo "$(echo "$sbx" | wc -l) shell names, the same in sbx, gen/platform and sbpl_check"
