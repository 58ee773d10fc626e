#!/bin/bash
# Device check (issue 6 on real hardware): NVIDIA discovery, CDI, a local cluster whose node
# registers the real GPU, and device isolation for jobs with and without --gres=gpu.
exec > >(tee "$OUT/log") 2>&1
set -x
D=/opt/spur; mkdir -p $D; xz -T4 -dc "${SPUR_XZ:-.devcheck/spur.xz}" > $D/spur; chmod +x $D/spur
for n in spurd sbatch srun squeue sacct scontrol sinfo; do ln -sf spur $D/$n; done; export PATH=$D:$PATH
uname -r; id; nvidia-smi -L; nvidia-smi topo -m | head -5; ls -la /dev/nvidia* ; stat -fc %T /sys/fs/cgroup; which setpriv python3
timeout 60 spurd --discover --json > "$OUT/discover.json"; echo rc=$?; head -c 2500 "$OUT/discover.json"; echo
timeout 60 spurd --discover; echo rc=$?
timeout 60 spur cdi generate --vendor nvidia > "$OUT/cdi.json"; echo rc=$?; head -c 1500 "$OUT/cdi.json"; echo
timeout 60 spur up --detach --state-dir /tmp/c1 --nodes 1 --cpus-per-node 8 --mem-per-node 16000 --devices-root /; echo up_rc=$?
export SPUR_CONF=/tmp/c1/spur.conf
sleep 3; sinfo -o "%N %G %T"; scontrol show node n1 | grep -i -E "gres|cfgtres|state"
timeout 60 srun --gres=gpu:1 bash -c 'echo WITH_GPU CVD=$CUDA_VISIBLE_DEVICES; nvidia-smi -L; cat /proc/self/cgroup'
timeout 60 srun bash -c 'echo NO_GPU CVD=$CUDA_VISIBLE_DEVICES; nvidia-smi -L; echo smi_rc=$?; head -c 1 /dev/nvidia0 >/dev/null; echo open_rc=$?'
timeout 90 srun --gres=gpu:1 python3 -c 'import torch;print("torch_gpu", torch.cuda.device_count(), torch.cuda.get_device_name(0))'
timeout 90 srun python3 -c 'import torch;print("torch_nogpu", torch.cuda.device_count())'
J=$(sbatch --parsable --gres=gpu:1 -o /tmp/c1/j.out --wrap 'nvidia-smi -L; echo CVD=$CUDA_VISIBLE_DEVICES')
sleep 6; cat /tmp/c1/j.out; sacct -j $J -o JobID,State,ExitCode,AllocTRES%40; squeue
tail -n 20 /tmp/c1/log/*spurd* 2>/dev/null | tail -40
spur down --state-dir /tmp/c1
