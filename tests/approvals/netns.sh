# Sourced by the network tests: re-runs the calling script inside a new
# network namespace (unshare -n) where 198.51.100.1/24 (TEST-NET-2) and
# 2001:db8::2/64 (documentation prefix) are the addresses of an interface
# sbxd0 that leads nowhere: a packet "sent to another host" there leaves
# through it and is dropped, nothing real is ever contacted. Skips (77)
# without unshare/ip or the right to make a namespace.
# Usage: . netns.sh "$0"  (NETNS_IF is then the interface's name)
if [ -z "${IN_NETNS:-}" ]; then
  command -v unshare >/dev/null && command -v ip >/dev/null || { echo "SKIP: needs unshare and ip"; exit 77; }
  unshare -n true 2>/dev/null || { echo "SKIP: cannot create a network namespace"; exit 77; }
  exec unshare -n env IN_NETNS=1 bash "$1"
fi
ip link set lo up || { echo "FAIL: lo up"; exit 1; }
# A dummy interface when the kernel has the module, a veth pair else, and
# as a last resort the addresses on lo itself (the supervisor decides by
# the address, not by the interface).
NETNS_IF=sbxd0
if ip link add sbxd0 type dummy 2>/dev/null || ip link add sbxd0 type veth peer name sbxd1 2>/dev/null; then
  ip addr add 198.51.100.1/24 dev sbxd0 && ip -6 addr add 2001:db8::2/64 dev sbxd0 nodad &&
    ip link set sbxd0 up || { echo "FAIL: interface setup"; exit 1; }
else
  NETNS_IF=lo
  ip addr add 198.51.100.1/32 dev lo && ip -6 addr add 2001:db8::2/128 dev lo nodad ||
    { echo "FAIL: address setup"; exit 1; }
fi
