/**
 * @module tests/conformance/scenarios/extra-formats
 * Beyond the goldens: squeue/sinfo/sacct/scontrol custom formats, filters and
 * sorting on a busy cluster (a job with an srun step, a GPU job, a throttled
 * array, a held job), plus hostlist helpers.
 */
import { cap, run, type Group } from "../scenario.ts";

const BUSY2 = "$RUN1 'run1' (-n2, srun step sleeping), $GPUR 'gpurun' (-p gpu --gres=gpu:3), array $THR 'thr' (--array=1-4%1), $HELD2 'heldx' (-H)";
const busy = (id: string, cmd: string) => cap(id, cmd, { setup: BUSY2 });

export const formats: Group = {
  name: "extra: formats on a busy cluster",
  steps: [
    run("scancel -u root 2>/dev/null; wait_idle"),
    run("sbatch --parsable -J run1 -n2 --time=30 --wrap='srun -n1 sleep 300'", "RUN1"),
    run("sbatch --parsable -J gpurun -p gpu --gres=gpu:3 --wrap='sleep 300'", "GPUR"),
    run("sbatch --parsable -J thr --array=1-4%1 --wrap='sleep 300'", "THR"),
    run("sbatch --parsable -J heldx -H --wrap=true", "HELD2"),
    run("wait_state $RUN1 RUNNING; wait_state $GPUR RUNNING; wait_state ${THR}_1 RUNNING; for i in $(seq 50); do squeue -h -s -j $RUN1 -o %i | grep -q \"$RUN1\\.0\" && break; sleep 0.2; done"),
    // slurmdbd learns of a start a few seconds late (until then sacct says PENDING, name "allocation")
    run("wait_sacct_running $RUN1 $GPUR ${THR}_1; sleep 1"),
    busy("x-squeue-o-widths", 'squeue -o "%.10i %.3t %.4C %.5D %.10j %R"'),
    busy("x-squeue-o-left-aligned", 'squeue -o "%10i|%-8j|%5D|%t"'),
    busy("x-squeue-O-widths", 'squeue -O "JobID:12,Name:10,State:9,NodeList:8,NumNodes:6"'),
    busy("x-squeue-array-expanded", "squeue -r -h -o '%i %t %K'"),
    busy("x-squeue-array-collapsed", "squeue -h -j $THR -o '%i %t %r'"),
    busy("x-squeue-t-running", "squeue -t R -h -o '%i %j'"),
    busy("x-squeue-t-list", "squeue -t PD,R -h -o '%i %T'"),
    busy("x-squeue-p-gpu", "squeue -p gpu"),
    busy("x-squeue-n-name", "squeue -n thr,heldx -h -o '%i %j %r'"),
    busy("x-squeue-S-jobid", "squeue -S i -h -o %i"),
    busy("x-squeue-S-name-desc", "squeue -S -j -h -o '%j'"),
    busy("x-squeue-steps", "squeue -s"),
    busy("x-squeue-steps-o", "squeue -s -h -o '%i %j %N'"),
    busy("x-squeue-me", "squeue --me -h -o '%i %u'"),
    // the header line (from a second call) lets the table masks find the TIME column of the header-less rows
    busy("x-squeue-noheader-default", "squeue -t R | head -1; squeue --noheader -t R"),
    busy("x-squeue-tres-gres", "squeue -h -j $GPUR -o '%b|%C|%D|%N'"),
    busy("x-sinfo-o-widths", 'sinfo -o "%20N %10c %10m %25f %10G"'),
    // sorted (as every sinfo -N here): the oracle lists a node's partitions in either order from run to run
    cap("x-sinfo-Nel", "sinfo -Nel | tail -n +2", { setup: BUSY2, compare: "sorted" }),
    busy("x-sinfo-t-idle", "sinfo -t idle"),
    busy("x-sinfo-t-mixed", "sinfo -t mix -h -o '%N %T'"),
    cap("x-sinfo-O", 'sinfo -O "NodeList,CPUsState,Gres,StateLong"', { setup: BUSY2, compare: "sorted" }),
    cap("x-sinfo-N-gres-used", "sinfo -N -h -o '%N %G %C' -p gpu", { setup: BUSY2, compare: "sorted" }),
    busy("x-sinfo-summarize-gpu", "sinfo -s -p gpu"),
    busy("x-scontrol-show-job-gpu", "scontrol show job $GPUR"),
    busy("x-scontrol-show-job-array-pending", "scontrol show job ${THR} | grep -E 'JobId|ArrayTaskThrottle|JobState'"),
    busy("x-scontrol-show-step", "scontrol show step $RUN1.0 | grep -vE 'StartTime|TimeLimit'"),
    busy("x-scontrol-hostnames", "scontrol show hostnames 'n[1-3],n7'"),
    busy("x-scontrol-hostlist", "scontrol show hostlist n1,n2,n3,n5"),
    busy("x-sacct-running", "sacct -j $RUN1 -o JobID,JobName,State,AllocCPUS,NodeList"),
    busy("x-sacct-widths", "sacct -j $RUN1 -X -o JobID%-15,JobName%12,State%20"),
    busy("x-sacct-noheader-tres", "sacct -j $GPUR --noheader -X -o AllocTRES%60"),
    busy("x-sacct-array-throttled", "sacct -j $THR -X -o JobID,JobName,State"),
    busy("x-sacct-X-request", "sacct -j $GPUR -X -o JobID,ReqCPUS,ReqMem,Partition,Timelimit,NNodes"),
    run("scancel -u root; wait_idle"),
  ],
};
