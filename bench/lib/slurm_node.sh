# Sourced by bench/device_slurm_gpu.sh: a single-node Slurm cluster from a folder of unpacked
# binaries (tools/make-carry-slurm writes .carry/slurm: Debian 12's Slurm 22.05 and munge), for a
# machine without Slurm and without a package registry. Root only. Nothing is installed: the
# configuration, the state, the munge key and socket, the logs and the client commands' wrappers
# all live under STATE, on ports of their own (16817, 16818), so a Slurm of the machine's own is
# left alone. The node is this machine (its CPUs and memory); with GPU_FILE, it has one GPU gres
# (gres gpu, File=GPU_FILE: Slurm gives a task that asks for --gres=gpu:1 that device, and sets its
# CUDA_VISIBLE_DEVICES). A task prolog makes the GPU it was given one CUDA cannot open while the file
# STATE/break-gpu exists (a node whose GPU cannot be used; Slurm still thinks it gave a GPU).
#   source bench/lib/slurm_node.sh
#   slurm_node_start CARRY STATE [GPU_FILE]    starts munged, slurmctld, slurmd; waits for the node;
#                                              exports SLURM_CONF and puts STATE/bin first on PATH
#   slurm_node_stop STATE                      ends the daemons it started (by their pid files)
# Libraries: the carried ones the machine lacks (ldconfig -p) are linked into STATE/libs; the daemons
# load them with LD_LIBRARY_PATH, the client commands through the dynamic loader's --library-path
# (so sbatch exports no LD_LIBRARY_PATH of ours into the tasks' environment).

slurm_node_start() {
  local carry=$1 state=$2 gpu_file=${3:-}
  carry=$(cd "$carry" && pwd) || return 1
  mkdir -p "$state"/{bin,libs,log,ctld,d} && state=$(cd "$state" && pwd)
  chmod 755 "$state"
  local ld=/lib64/ld-linux-x86-64.so.2 lib name
  for lib in "$carry"/lib/*; do
    name=$(basename "$lib")
    ldconfig -p | grep -q "^[[:space:]]*$name " || ln -sf "$lib" "$state/libs/$name"
  done
  local lp=$carry/plugins:$state/libs
  echo "slurm_node: carried libraries used here: $(ls "$state/libs" | tr '\n' ' ')"
  for b in "$carry"/bin/*; do
    printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' "$ld" "$lp" "$b" >"$state/bin/$(basename "$b")"
    chmod 755 "$state/bin/$(basename "$b")"
  done
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc --all)
  mem=$(( $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) - 1024 ))
  local gres_node="" gres_types=""
  if [[ -n $gpu_file ]]; then
    gres_types="GresTypes=gpu"
    gres_node="Gres=gpu:1"
    echo "NodeName=$host Name=gpu File=$gpu_file" >"$state/gres.conf"
  else
    : >"$state/gres.conf"
  fi
  cat >"$state/task_prolog.sh" <<EOF
#!/bin/sh
# banklab slurm_node: while $state/break-gpu exists, the GPU a task was given is one CUDA cannot open.
if [ -e $state/break-gpu ]; then echo "export CUDA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000"; fi
EOF
  chmod 755 "$state/task_prolog.sh"
  cat >"$state/slurm.conf" <<EOF
# written by banklab bench/lib/slurm_node.sh
ClusterName=banklabgpu
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$state/munge.socket
PluginDir=$carry/plugins
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/d
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$state/task_prolog.sh
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MinJobAge=600
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
$gres_types
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem $gres_node State=UNKNOWN
PartitionName=banklab Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$state/slurm.conf
  export PATH=$state/bin:$PATH
  [[ -s $state/munge.key ]] || dd if=/dev/urandom of="$state/munge.key" bs=1 count=1024 status=none
  chmod 400 "$state/munge.key"
  LD_LIBRARY_PATH=$lp "$carry/sbin/munged" --key-file="$state/munge.key" --socket="$state/munge.socket" \
    --pid-file="$state/munged.pid" --log-file="$state/log/munged.log" --seed-file="$state/munged.seed" --force ||
    { echo "slurm_node: munged did not start" >&2; tail -n 5 "$state/log/munged.log" >&2; return 1; }
  LD_LIBRARY_PATH=$lp "$carry/sbin/slurmctld" -i ||
    { echo "slurm_node: slurmctld did not start" >&2; tail -n 20 "$state/log/slurmctld.log" >&2; return 1; }
  # slurmd always loads a cgroup plugin, though nothing here uses cgroups (proctrack/linuxproc,
  # task/none). On a cgroup v2 machine without systemd's D-Bus (a container, the GPU machine) the v2
  # plugin cannot start: the v1 plugin's start touches no cgroup; where that fails, v2 without systemd.
  local cg ok=""
  for cg in "CgroupPlugin=cgroup/v1" $'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes'; do
    printf '# written by banklab bench/lib/slurm_node.sh\n%s\n' "$cg" >"$state/cgroup.conf"
    if LD_LIBRARY_PATH=$lp "$carry/sbin/slurmd" -N "$host" -d "$carry/sbin/slurmstepd"; then ok=1; break; fi
    echo "slurm_node: slurmd did not start with ${cg//$'\n'/, }" >&2
    tail -n 4 "$state/log/slurmd.log" >&2
  done
  [[ -n $ok ]] || { echo "slurm_node: slurmd did not start" >&2; return 1; }
  echo "slurm_node: slurmd started with cgroup.conf: $(grep -v '^#' "$state/cgroup.conf" | tr '\n' ' ')"
  local st=""
  for _ in $(seq 60); do
    st=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
    [[ $st == idle* || $st == mixed* || $st == allocated* ]] && break
    sleep 0.5
  done
  if [[ $st != idle* && $st != mixed* && $st != allocated* ]]; then
    echo "slurm_node: the node $host did not come up (state '${st:-none}'); logs: $state/log" >&2
    tail -n 20 "$state"/log/*.log >&2
    return 1
  fi
  echo "slurm_node: node $host is $st ($cpus CPUs${gpu_file:+, gres gpu:1 = $gpu_file}); $SLURM_CONF"
}

slurm_node_stop() {
  local state=$1 p pid
  for p in "$state/slurmd.pid" "$state/slurmctld.pid" "$state/munged.pid"; do
    [[ -f $p ]] || continue
    pid=$(cat "$p")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  done
}
