/**
 * @module tests/conformance/scenarios/golden-accounting
 * Golden scenarios 102-119 (capture.sh section H), re-run live: sacct over every
 * job this run submitted so far, in default, parsable, brief, state-filtered and
 * JSON forms; helpformat; a completed job in scontrol; the output files.
 * Queries without -j add `-S "$T0"` so the oracle's earlier runs stay out.
 */
import { cap, run, type Group } from "../scenario.ts";

const ALL = "all jobs submitted by this run so far (golden groups A-H)";
const all = (id: string, cmd: string, compare?: "json") => cap(id, cmd, { setup: ALL, ...(compare ? { compare } : {}) });

export const accounting: Group = {
  name: "golden H: accounting",
  steps: [
    run("sbatch --parsable -H -J heldcancel --wrap=true", "HC"),
    run("scancel $HC"),
    run('wait_sacct "$(sbatch --parsable --wrap=true)"'),
    run("wait_idle"),
    run("wait_sacct_quiet"),
    all("102-sacct-default", 'sacct -S "$T0"'),
    all("103-sacct-parsable2-format", 'sacct -S "$T0" --parsable2 --format=JobID,JobName,State,ExitCode,Elapsed,AllocTRES'),
    all("104-sacct-X", 'sacct -S "$T0" -X'),
    all("105-sacct-j-array", "sacct -j $ARR"),
    all("106-sacct-j-array-parsable", "sacct -P -j $ARR --format=JobID,JobIDRaw,JobName,Partition,State,ExitCode,Elapsed,NNodes,NodeList,AllocTRES,ReqTRES"),
    all("107-sacct-j-gpu", "sacct -j $GPUJOB --format=JobID,JobName,AllocTRES%40,State,ExitCode"),
    all("108-sacct-j-failed", "sacct -j $FAIL"),
    all("109-sacct-j-cancelled-long", "sacct -j $LONG -o JobID,JobName,State,ExitCode,DerivedExitCode"),
    cap("110-sacct-j-held-cancelled", "sacct -j $HC -o JobID,JobName,State,Submit,Eligible,Start,End", {
      setup: `${ALL}; job $HC 'heldcancel' was submitted with -H and cancelled while held`,
    }),
    all("111-sacct-j-nonexistent", "sacct -j 999999"),
    all("112-sacct-brief", 'sacct -S "$T0" -b'),
    all("113-sacct-n-X-P", 'sacct -S "$T0" -n -X -P -o JobID,State,ExitCode'),
    // -E now as well: with --state and -S but no -E, 22.05 lists nothing at all
    all("114-sacct-state-filter", 'sacct -S "$T0" -E now -X -s F,CA -o JobID,JobName,State'),
    all("115-sacct-json-j", "sacct --json -j $FAIL", "json"),
    all("116-sacct-helpformat", "sacct --helpformat"),
    all("117-squeue-helpformat", "squeue --helpformat"),
    all("118-scontrol-show-job-completed", "scontrol show job $FAIL"),
    run('sacct -n -X -P -S "$T0" -o JobIDRaw | xargs', "ALLIDS"),
    // sort -V: numeric order of ids (plain ls orders 10 before 9), the same on both sides
    cap("119-output-files", "ls *.out | sort -V", { setup: ALL, ids: ["ALLIDS"] }),
  ],
};
