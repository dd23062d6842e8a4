#!/bin/sh
# too_big.sh PNETC WORKDIR: a profile whose filter cannot fit BPF_MAXINSNS
# must make pnetc exit 3 with a message naming the limit, and write nothing.
pnetc=$1 dir=$2
json=$dir/too_big.json out=$dir/too_big.bpf
rm -f "$out"
{
  echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": ['
  i=0
  # 240 entries x 6 conditions on distinct 64-bit arguments: > 5000 instructions.
  for name in read write openat close fstat lseek mmap mprotect munmap brk ioctl pread64 \
              readv writev access pipe select sched_yield mremap msync mincore madvise \
              shmget shmat; do
    j=0
    while [ $j -lt 10 ]; do
      v=$((i * 100 + j))
      [ $i -gt 0 ] || [ $j -gt 0 ] && echo ','
      printf '{"names": ["%s"], "action": "SCMP_ACT_ALLOW", "args": [' "$name"
      printf '{"index": 0, "value": %d, "op": "SCMP_CMP_EQ"}, {"index": 1, "value": %d, "op": "SCMP_CMP_EQ"},' $v $((v + 1))
      printf '{"index": 2, "value": %d, "op": "SCMP_CMP_EQ"}, {"index": 3, "value": %d, "op": "SCMP_CMP_EQ"},' $((v + 2)) $((v + 3))
      printf '{"index": 4, "value": %d, "op": "SCMP_CMP_EQ"}, {"index": 5, "value": %d, "op": "SCMP_CMP_EQ"}]}' $((v + 4)) $((v + 5))
      j=$((j + 1))
    done
    i=$((i + 1))
  done
  echo ']}'
} > "$json"
"$pnetc" -q --emit bpf -o "$out" "$json" 2> "$dir/too_big.stderr"
rc=$?
[ $rc -eq 3 ] || { echo "exit $rc, expected 3" >&2; cat "$dir/too_big.stderr" >&2; exit 1; }
[ ! -e "$out" ] || { echo "partial output $out left behind" >&2; exit 1; }
grep -q "BPF_MAXINSNS" "$dir/too_big.stderr" || { echo "no message naming BPF_MAXINSNS" >&2; cat "$dir/too_big.stderr" >&2; exit 1; }
exit 0
