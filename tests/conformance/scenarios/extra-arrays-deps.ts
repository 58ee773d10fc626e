/**
 * @module tests/conformance/scenarios/extra-arrays-deps
 * Beyond the goldens: array specs (steps, lists, throttles), cancelling array
 * elements, array accounting; dependency types (afterany, afternotok, after,
 * singleton, aftercorr, element and multi-job forms, kill-on-invalid-dep) and how
 * they are shown; and a job running into its time limit (TIMEOUT).
 */
import { cap, run, type Group } from "../scenario.ts";

const dep = (id: string, cmd: string) => cap(id, `${cmd}; squeue -h -j $D -o '%E|%r' ; scontrol show job $D | grep -o 'Dependency=[^ ]*'`);

export const arrays: Group = {
  name: "extra: arrays",
  steps: [
    run("scancel -u root 2>/dev/null; wait_idle"),
    run("sbatch --parsable -J timeout --time=1 --wrap='sleep 300'", "TO"),
    run("sbatch -H --parsable --array=0-6:3 -J step3 --wrap=true", "A1"),
    run("sbatch -H --parsable --array=1,3,5 -J list --wrap=true", "A2"),
    run("sbatch -H --parsable --array=1-10%3 -J throttle --wrap=true", "A3"),
    cap("x-array-step-pending", "squeue -h -j $A1 -o '%i|%K|%j|%r'"),
    cap("x-array-step-expanded", "squeue -r -h -j $A1 -o '%i|%K'"),
    cap("x-array-list-pending", "squeue -h -j $A2 -o '%i|%K'"),
    cap("x-array-throttle-pending", "squeue -h -j $A3 -o '%i|%K'"),
    cap("x-array-scontrol-pending", "scontrol show job $A3 | grep -E 'JobId=|ArrayTaskThrottle|JobState'"),
    cap("x-array-scancel-elements", "scancel ${A2}_[1-3]; squeue -h -r -j $A2 -o '%i|%t'"),
    cap("x-array-scancel-element-bad", "scancel ${A2}_9; echo rc=$?"),
    cap("x-array-update-throttle", "scontrol update JobId=$A3 ArrayTaskThrottle=2; squeue -h -j $A3 -o '%i'"),
    run("scontrol release $A1"),
    run("wait_sacct ${A1}_0 ${A1}_3 ${A1}_6"),
    cap("x-array-sacct-after-run", "sacct -j $A1 -X -o JobID,JobName,State,ExitCode"),
    run("scancel $A2 $A3"),
    run("sbatch --parsable -J thr2 --array=1-4%2 --wrap='sleep 300'", "A4"),
    run("wait_state ${A4}_1 RUNNING; wait_state ${A4}_2 RUNNING; sleep 1"),
    cap("x-array-throttle-running", "squeue -h -j $A4 -o '%i|%t|%r'"),
    cap("x-array-env-count", "scontrol show job ${A4}_2 | grep -E 'JobId=|ArrayTaskId'"),
    run("scancel $A4; wait_idle"),
  ],
};

export const dependencyKinds: Group = {
  name: "extra: dependencies",
  steps: [
    run("sbatch --parsable -J bad --wrap='exit 1'", "BAD"),
    run("sbatch --parsable -J good --wrap='true'", "GOOD"),
    run("wait_sacct $BAD $GOOD"),
    run("sbatch --parsable -J sleeper --wrap='sleep 300'", "SLEEPER"),
    run("wait_state $SLEEPER RUNNING"),
    run("sbatch --parsable -H -J arr --array=1-2 --wrap=true", "DARR"),
    run("sbatch --parsable -J any --dependency=afterany:$BAD --wrap=true", "ANY"),
    run("sbatch --parsable -J notok --dependency=afternotok:$BAD --wrap=true", "NOTOK"),
    run("sbatch --parsable -J okgood --dependency=afterok:$GOOD --wrap=true", "OKGOOD"),
    run("sbatch --parsable -J killdep --kill-on-invalid-dep=yes --dependency=afterok:$BAD --wrap=true", "KILLDEP"),
    run("sbatch --parsable -J after --dependency=after:$SLEEPER --wrap=true", "AFTER"),
    run("wait_sacct $ANY $NOTOK $OKGOOD $AFTER; sleep 1"),
    // JobID, not JobName: slurmdbd briefly records a quickly finished job under the name "allocation"
    cap("x-dep-outcomes", "sacct -X -n -P -j $ANY,$NOTOK,$OKGOOD,$AFTER,$KILLDEP -o JobID,State,Reason"),
    cap("x-dep-kill-on-invalid", "squeue -h -t all -j $KILLDEP -o '%j|%T|%r'"),
    run("sbatch --parsable -J single --dependency=singleton --wrap='sleep 300'", "D"),
    dep("x-dep-singleton-first", "true"),
    run("sbatch --parsable -J single --dependency=singleton --wrap=true", "D"),
    dep("x-dep-singleton-second", "sleep 1"),
    run("sbatch --parsable -J elem --dependency=afterok:${DARR}_1 --wrap=true", "D"),
    dep("x-dep-on-array-element", "true"),
    run("sbatch --parsable -J corr --array=1-2 --dependency=aftercorr:$DARR --wrap=true", "D"),
    dep("x-dep-aftercorr", "true"),
    run("sbatch --parsable -J multi --dependency=afterok:$SLEEPER:$DARR --wrap=true", "D"),
    dep("x-dep-multiple-ids", "true"),
    run("sbatch --parsable -J orform --dependency=afterok:$SLEEPER?afterany:$DARR --wrap=true", "D"),
    dep("x-dep-or-form", "true"),
    run("sbatch --parsable -J mixed --dependency=afterok:$SLEEPER,afterany:$DARR --wrap=true", "D"),
    dep("x-dep-and-list", "true"),
    cap("x-dep-update", "scontrol update JobId=$D Dependency=afterany:$SLEEPER; squeue -h -j $D -o '%E'"),
    run("wait_state $TO TIMEOUT 150", undefined, 160),
    cap("x-timeout-squeue", "squeue -h -t all -j $TO -o '%j|%T|%r'"),
    run("wait_sacct $TO"),
    cap("x-timeout-sacct", "sacct -j $TO -o JobID,JobName,State,ExitCode"),
    run("scancel -u root; wait_idle"),
  ],
};
