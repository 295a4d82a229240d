#!/bin/bash
# Test hosts on one machine (chapter 9): each host is a network namespace with a UTS
# namespace of its own (its own hostname and address), joined by a veth pair to a bridge in
# the root namespace. mpirun runs in one more namespace on the bridge, the head, so that the
# TCP settings of every machine of the job are the job's own. Each host's link is shaped by
# tbf, both ways, to LINK. Open MPI starts ranks on them through scripts/hosts-rsh (ip netns
# exec plus unshare --uts; no ssh). Traffic stays between these hosts.
#
#   scripts/hosts.sh up N [LINK]     N hosts PREFIX-host1..N, links of LINK (1gbit, 5gbit,
#                                    500mbit...; none: unshaped); replaces hosts of PREFIX
#   scripts/hosts.sh down            every host of PREFIX, its processes, links and bridge
#   scripts/hosts.sh list            the hosts' names, one a line (nothing: none up)
#   scripts/hosts.sh subnet          the bridge's subnet (10.77.0.0/24)
#   scripts/hosts.sh link HOST up|down   take a host's link down, or bring it back
#   scripts/hosts.sh left            what of PREFIX is still there (nothing: all gone)
#   scripts/hosts.sh run K PROGRAM ARGS...   mpirun K ranks on every host: PROGRAM ARGS
#                                    (K1,K2,...: K1 ranks on host1, K2 on host2...)
#
# PREFIX is $DPS_HOSTS (default dps), at most 8 letters and digits: a test makes hosts of
# its own under a prefix of its own, so that two runs never share them. Nothing is written
# anywhere: the hosts, their subnet and links are read back from the kernel.
# Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN); without it, says so and exits 77.
set -u
PREFIX=${DPS_HOSTS:-dps}
BR=${PREFIX}br
HERE=$(cd "$(dirname "$0")" && pwd)

die() { echo "hosts: $*" >&2; exit 1; }
[[ $PREFIX =~ ^[a-z][a-z0-9]{0,7}$ ]] || die "DPS_HOSTS=$PREFIX: 1 to 8 lower-case letters and digits, a letter first"

need_root() {
    [ "$(id -u)" = 0 ] || { echo "hosts: test hosts need root (network namespaces, a bridge, tc): run as root" >&2; exit 77; }
    command -v ip >/dev/null && command -v tc >/dev/null ||
        { echo "hosts: ip and tc not found: apt-get install iproute2" >&2; exit 77; }
}

# A TCP connection whose peer is gone gives up after 1 retransmission (well under a second)
# instead of 15 (about 15 minutes): a host whose link is down is then found lost in seconds
# (chapter 9). A live link loses a segment and its retransmission a fifth of a second later
# only when its queue stays full that long, which tbf's 50 ms queue does not allow.
RETRIES=1

hosts() { ip netns list 2>/dev/null | awk -v p="$PREFIX-host" 'index($1, p) == 1 && $1 ~ /host[0-9]+$/ {print $1}' | sort -V; }
subnet() { ip -4 -o addr show dev "$BR" 2>/dev/null | awk '{split($4, a, "[./]"); print a[1] "." a[2] "." a[3] ".0/24"; exit}'; }

# A /24 no interface of this machine uses yet: 10.77.0.0/24 first, then 10.77.1.0/24...
free_subnet() {
    local used i
    used=$(ip -4 -o addr show | awk '{print $4}')
    for i in $(seq 0 255); do
        grep -q "^10\.77\.$i\." <<<"$used" || { echo "10.77.$i"; return; }
    done
    die "no free subnet in 10.77.0.0/16"
}

# The token bucket of every link (tbf): a burst of BURST_MS of the rate but at least
# BURST_MIN bytes (less starves TCP's 64 KiB segments), a queue of QUEUE_MS. The burst is
# what an idle link lets through at the wire's speed; chapter 9's bound allows for it.
# Chapter 9 states these three and RETRIES (make book checks that it states them as set
# here: book/constants.txt), and bench/bench.sh's bound reads them from here.
BURST_MS=1
BURST_MIN=262144
QUEUE_MS=50

# tbf on one device: RATE (tc's units), with the bucket above.
shape() {
    local dev=$1 rate=$2 ns=${3:-}
    local run=() bits burst
    [ -n "$ns" ] && run=(ip netns exec "$ns")
    "${run[@]}" tc qdisc del dev "$dev" root 2>/dev/null
    [ "$rate" = none ] && return 0
    bits=$(rate_bits "$rate") || die "LINK=$rate: a rate such as 1gbit, 500mbit or 5gbit, or none"
    burst=$((bits / 8 * BURST_MS / 1000)); [ $burst -ge $BURST_MIN ] || burst=$BURST_MIN
    "${run[@]}" tc qdisc add dev "$dev" root tbf rate "$rate" burst "$burst" latency "${QUEUE_MS}ms" ||
        die "tc could not shape $dev to $rate"
}
rate_bits() {
    [[ $1 =~ ^([0-9]+)(kbit|mbit|gbit)$ ]] || return 1
    case ${BASH_REMATCH[2]} in kbit) echo $((BASH_REMATCH[1] * 1000)) ;;
        mbit) echo $((BASH_REMATCH[1] * 1000000)) ;; gbit) echo $((BASH_REMATCH[1] * 1000000000)) ;; esac
}

down() {
    local h
    for h in $(hosts) $(ip netns list 2>/dev/null | awk -v h="$PREFIX-head" '$1 == h {print $1}'); do
        ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$h" 2>/dev/null
    done
    ip link del "$BR" 2>/dev/null
    ip netns del "${PREFIX}-probe" 2>/dev/null
    ip link del "${PREFIX}pr" 2>/dev/null
    for h in $(ip -o link show | awk -F': ' -v p="${PREFIX}v" 'index($2, p) == 1 {sub(/@.*/, "", $2); print $2}'); do
        ip link del "$h" 2>/dev/null
    done
    [ -z "$(left)" ] || die "could not remove: $(left | paste -sd' ')"
}

left() {
    hosts
    ip netns list 2>/dev/null | awk -v h="$PREFIX-head" -v q="$PREFIX-probe" '$1 == h || $1 == q {print $1}'
    ip -o link show | awk -F': ' -v b="$BR" -v p="${PREFIX}v" -v q="${PREFIX}pr" '{sub(/@.*/, "", $2)} $2 == b || $2 == q || index($2, p) == 1 {print $2}'
}

# Whether this machine lets us make a network namespace, run in it and make a bridge (a
# container may not; in a chroot ip netns exec cannot remount /): if not, say why and exit
# 77, the tests' "skipped".
can_make_namespaces() {
    local probe=${PREFIX}-probe why
    if ! why=$(ip netns add "$probe" 2>&1) || ! why=$(ip netns exec "$probe" true 2>&1) ||
        ! why=$(ip link add "${PREFIX}pr" type bridge 2>&1); then
        ip netns del "$probe" 2>/dev/null
        echo "hosts: this machine makes no network namespace or bridge here: ${why:-refused}" >&2
        exit 77
    fi
    ip link del "${PREFIX}pr"
    ip netns del "$probe"
}

# Namespace NAME on the bridge through veth PREFIXvI, its end eth0 at ADDRESS.
join() {
    local ns=$1 i=$2 addr=$3
    ip netns add "$ns" || die "cannot make the namespace $ns"
    ip link add "${PREFIX}v$i" type veth peer name eth0 netns "$ns" || die "cannot make the link of $ns"
    ip link set "${PREFIX}v$i" master "$BR" up
    ip -n "$ns" addr add "$addr/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sh -c "echo $RETRIES > /proc/sys/net/ipv4/tcp_retries2" ||
        die "cannot set tcp_retries2 in $ns"
}

up() {
    local n=$1 link=${2:-none} net i h
    [[ $n =~ ^[1-9][0-9]?$ ]] && [ "$n" -le 32 ] || die "HOSTS=$n: 1 to 32 hosts"
    [ "$link" = none ] || rate_bits "$link" >/dev/null || die "LINK=$link: a rate such as 1gbit, 500mbit or 5gbit, or none"
    down
    can_make_namespaces
    trap 'down >/dev/null 2>&1' EXIT # a failure half-way leaves nothing; success clears it
    # /run/lock, or /tmp where it cannot be written ('command': a failed redirection of exec
    # would end the script; and exec keeps every redirection it is given, so no 2>)
    local lock=/run/lock/dps-hosts.lock
    [ -w /run/lock ] || lock=/tmp/dps-hosts.lock
    command exec 9>"$lock" || die "cannot open the lock $lock"
    flock 9 # two hosts.sh up at once pick two subnets
    net=$(free_subnet)
    ip link add "$BR" type bridge || die "cannot make the bridge $BR"
    ip addr add "$net.1/24" dev "$BR" && ip link set "$BR" up || die "cannot address $BR"
    join "$PREFIX-head" 0 "$net.10"
    for i in $(seq 1 "$n"); do
        h=$PREFIX-host$i
        join "$h" "$i" "$net.$((10 + i))"
        shape "${PREFIX}v$i" "$link"     # towards the host
        shape eth0 "$link" "$h"          # from the host
    done
    flock -u 9
    trap - EXIT
    echo "hosts: $n up ($(hosts | paste -sd' ')), $net.0/24 on bridge $BR, links $link"
}

link() {
    local h=$1 state=$2 i
    [[ $h =~ ^$PREFIX-host([0-9]+)$ ]] && hosts | grep -qx "$h" || die "no host $h (scripts/hosts.sh list)"
    i=${BASH_REMATCH[1]}
    [[ $state =~ ^(up|down)$ ]] || die "link $h $state: up or down"
    ip link set "${PREFIX}v$i" "$state"
}

# mpirun over the hosts: K ranks on each, over TCP between hosts and shared memory within
# one, pinned to the bridge's subnet. mpi_yield_when_idle: on a machine with fewer cores
# than processes, a rank that waits gives its core away (chapter 9 measures why).
# btl_tcp_links 2: two connections per pair of ranks; over one, Open MPI's TCP transport
# carried 16 MiB each way at once at half the link's rate here (62 against 120 MB/s one
# way), over two at 107-113 MB/s. Keepalives: mpirun finds a lost host in about 3 s.
run() {
    local k=${1:-}; shift
    local list net counts
    [[ $k =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "run K PROGRAM: K ranks on each host (or K1,K2,... host by host)"
    [ -n "$(hosts)" ] || die "no hosts of $PREFIX are up: make hosts HOSTS=2"
    if [[ $k == *,* ]]; then
        counts=$(tr , '\n' <<<"$k")
        [ "$(wc -l <<<"$counts")" = "$(hosts | wc -l)" ] || die "run $k: one count per host ($(hosts | wc -l) hosts)"
        list=$(paste -d: <(hosts) <(echo "$counts") | paste -sd,)
    else
        list=$(hosts | sed "s/\$/:$k/" | paste -sd,)
    fi
    net=$(subnet)
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 exec ip netns exec "$PREFIX-head" mpirun -H "$list" \
        --mca plm_rsh_agent "$HERE/hosts-rsh" \
        --mca oob_tcp_if_include "$net" --mca btl_tcp_if_include "$net" \
        --mca oob_tcp_keepalive_time 1 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 2 \
        --mca btl tcp,self,vader --mca btl_tcp_links 2 --mca mpi_yield_when_idle 1 "$@"
}

case ${1:-} in
    up) need_root; up "${2:-2}" "${3:-none}" ;;
    down) need_root; down ;;
    list) hosts ;;
    subnet) subnet ;;
    left) left ;;
    link) need_root; link "${2:-}" "${3:-}" ;;
    run) need_root; shift; run "$@" ;;
    *) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
