#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for tests: Debian's slurm-wlm and
# munge, every file under one folder.
#
#   scripts/slurm-local.sh start DIR   install the packages if needed (apt-get),
#                                      start munged, slurmctld and slurmd, wait
#                                      until the node is idle; DIR/env sets
#                                      SLURM_CONF for the client commands
#   scripts/slurm-local.sh stop DIR    stop the daemons start started (by the
#                                      pids it recorded in DIR/pids)
#
# Needs root (slurmd runs jobs as their users; SlurmUser=root). Exits
# non-zero with the reason when the cluster cannot start.
set -euo pipefail

die() { echo "slurm-local: $*" >&2; exit 1; }

[ $# -eq 2 ] || die "usage: $0 start|stop DIR"
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

stop() {
	[ -f "$dir/pids" ] || return 0
	# Newest first: slurmd, slurmctld, munged.
	tac "$dir/pids" | while read -r name pid; do
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
			echo "slurm-local: stopped $name ($pid)"
		fi
	done
	rm -f "$dir/pids"
}

case $cmd in
stop) stop; exit 0 ;;
start) ;;
*) die "unknown command $cmd (start or stop)" ;;
esac

[ "$(id -u)" -eq 0 ] || die "needs root (slurmd and munged), running as $(id -un)"
[ ! -f "$dir/pids" ] || die "$dir/pids exists: a cluster from this folder is running (stop it first)"

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
	echo "slurm-local: installing slurm-wlm and munge (apt-get)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends slurm-wlm munge >"$dir/apt.log" 2>&1 ||
		{ apt-get update >>"$dir/apt.log" 2>&1 && apt-get install -y --no-install-recommends slurm-wlm munge >>"$dir/apt.log" 2>&1; } ||
		die "apt-get install slurm-wlm munge failed (log: $dir/apt.log)"
fi
id munge >/dev/null 2>&1 || die "no munge user after installing munge"

host=$(hostname)
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
# Ports apart from a system Slurm's 6817/6818, moved by the folder's hash so
# that two clusters from different folders do not collide.
off=$(( $(cksum <<<"$dir" | cut -d' ' -f1) % 1000 ))
ctldport=$((17000 + 2 * off)) slurmdport=$((17001 + 2 * off))

# munged runs as the munge user: it must reach its folder.
chmod 0755 "$dir"
mkdir -p "$dir/munge" "$dir/state" "$dir/spool" "$dir/log"
setpriv --reuid munge --regid munge --init-groups test -x "$dir" ||
	die "the munge user cannot reach $dir (a parent folder is not world-searchable)"
chown munge:munge "$dir/munge"
chmod 0700 "$dir/munge"
: >"$dir/pids"

# munge: a fresh key, the daemon as the munge user, in the foreground so that
# $! is its pid.
rm -f "$dir/munge/munge.key"
setpriv --reuid munge --regid munge --init-groups mungekey -c -k "$dir/munge/munge.key" ||
	die "mungekey -c failed"
setpriv --reuid munge --regid munge --init-groups \
	munged -F --force --key-file "$dir/munge/munge.key" --socket "$dir/munge/munge.socket" \
	--pid-file "$dir/munge/munged.pid" --seed-file "$dir/munge/seed" --log-file "$dir/log/munged.log" \
	>>"$dir/log/munged.out" 2>&1 &
echo "munged $!" >>"$dir/pids"
for _ in $(seq 50); do [ -S "$dir/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge/munge.socket" ] || { stop; die "munged did not start: $(tail -3 "$dir/log/munged.log" "$dir/log/munged.out" 2>/dev/null)"; }

cat >"$dir/slurm.conf" <<CONF
ClusterName=ecl-local
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$ctldport
SlurmdPort=$slurmdport
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
echo "export SLURM_CONF=$dir/slurm.conf" >"$dir/env"
export SLURM_CONF=$dir/slurm.conf

# -D: in the foreground, so that $! is the daemon; -i: ignore stale state.
slurmctld -D -i -f "$dir/slurm.conf" >>"$dir/log/slurmctld.out" 2>&1 &
echo "slurmctld $!" >>"$dir/pids"
slurmd -D -f "$dir/slurm.conf" >>"$dir/log/slurmd.out" 2>&1 &
echo "slurmd $!" >>"$dir/pids"

for _ in $(seq 100); do
	state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
	case $state in idle*|mix*|alloc*) break ;; esac
	sleep 0.2
done
case ${state:-} in
idle*|mix*|alloc*) echo "slurm-local: node $host ($cpus CPUs, ${mem} MB) $state; SLURM_CONF=$dir/slurm.conf" ;;
*)
	reason=$(tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$dir/log/slurmctld.out" "$dir/log/slurmd.out" 2>/dev/null || true)
	stop
	die "the node did not become idle (state '${state:-none}'):
$reason"
	;;
esac
