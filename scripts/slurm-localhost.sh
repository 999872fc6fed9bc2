#!/bin/bash
# Brings up a single-node SLURM cluster on this machine for CI and tests ONLY: this host is both
# controller and compute node, daemons run as root, no cgroups, no accounting, loopback only.
# Debian 12 packages: slurm-wlm (slurmctld + slurmd 22.05) and munge. Idempotent: installs what is
# missing, writes /etc/slurm/slurm.conf (only if absent or written by this script), creates a munge
# key if there is none, starts munged/slurmctld/slurmd if they are not running, and waits until
# the node accepts jobs. Never run this on a real cluster node.
#
# usage: sudo scripts/slurm-localhost.sh        (exit 0 = `sbatch` works; non-zero = it does not)
set -euo pipefail

log() { echo "slurm-localhost: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "must run as root (installs packages, writes /etc/slurm, starts daemons)"
  exit 3
fi

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    log "slurm-wlm/munge are not installed and there is no apt-get"
    exit 4
  fi
  log "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm munge >/dev/null
fi

HOST=$(hostname -s)
NCPU=$(nproc)
CONF=/etc/slurm/slurm.conf
MARK="# written by powerzoo scripts/slurm-localhost.sh"

# --- munge ---------------------------------------------------------------------------------------
mkdir -p /etc/munge /var/lib/munge /var/log/munge /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  log "creating /etc/munge/munge.key"
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
fi
chown munge:munge /etc/munge /etc/munge/munge.key /var/lib/munge /var/log/munge /run/munge
chmod 0700 /etc/munge /var/lib/munge /var/log/munge
chmod 0755 /run/munge
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  log "starting munged"
  rm -f /run/munge/munged.pid
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
  munge -n | unmunge >/dev/null || { log "munged does not answer"; exit 5; }
fi

# --- slurm.conf ----------------------------------------------------------------------------------
if [ -f "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
  log "$CONF exists and was not written by this script; using it as is"
else
  mkdir -p /etc/slurm
  cat >"$CONF.new" <<EOF
$MARK
ClusterName=powerzoo-ci
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$NCPU RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
  if [ -f "$CONF" ] && cmp -s "$CONF" "$CONF.new"; then
    rm -f "$CONF.new"
  else
    mv "$CONF.new" "$CONF"
    log "wrote $CONF ($HOST, $NCPU cpus)"
  fi
fi
mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if ! pid_alive /run/slurmctld.pid; then
  log "starting slurmctld"
  /usr/sbin/slurmctld
fi
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
scontrol ping | grep -q UP || { log "slurmctld does not answer; see /var/log/slurm/slurmctld.log"; exit 6; }

if ! pid_alive /run/slurmd.pid; then
  log "starting slurmd"
  /usr/sbin/slurmd
fi

# Wait until the node is usable (idle/mixed/allocated); resume it if it came up down/drained.
for i in $(seq 150); do
  state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null | head -1 | tr -d '*~#')
  case "$state" in
    idle|mix|alloc|comp) log "ready: node $HOST is $state"; exit 0 ;;
    down|drain|drng|fail|inval)
      [ $((i % 10)) -eq 1 ] && scontrol update nodename="$HOST" state=resume 2>/dev/null || true ;;
  esac
  sleep 0.2
done
log "node $HOST did not become idle (state '${state:-unknown}'); see /var/log/slurm/slurmd.log"
exit 7
