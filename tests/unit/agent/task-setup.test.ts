/** srun's umask, soft limits and task prolog/epilog around a task's command (src/agent/task-setup.ts). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseProcLimits, withTaskSetup } from "../../../src/agent/task-setup.ts";

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max file size             unlimited            unlimited            bytes
Max stack size            8388608              unlimited            bytes
Max core file size        0                    unlimited            bytes
Max processes             96369                96369                processes
Max open files            1000                 20000                files
Max pending signals       96369                96369                signals
`;

describe("task setup", () => {
  it("reads the soft limits Slurm propagates from /proc/<pid>/limits", () => {
    expect(parseProcLimits(LIMITS)).toEqual({ cpu: "unlimited", fsize: "unlimited", stack: "8388608", core: "0", nproc: "96369", nofile: "1000" });
  });

  it("no setup leaves the command as it is", () => {
    expect(withTaskSetup(undefined, ["hostname"])).toEqual(["hostname"]);
  });

  it("the task runs with the submitter's umask and soft limits", () => {
    const argv = withTaskSetup({ umask: 0o027, softLimits: { nofile: "512", core: "0" }, taskProlog: "", taskEpilog: "" }, ["/bin/sh", "-c", "umask; ulimit -n; ulimit -c"]);
    const [cmd, ...args] = argv;
    const r = spawnSync(cmd ?? "", args, { encoding: "utf8" });
    expect(r.stdout.split("\n").filter(Boolean)).toEqual(["0027", "512", "0"]);
  });

  it("--task-prolog's export/print lines reach the task; --task-epilog runs after it", () => {
    const dir = mkdtempSync(join(tmpdir(), "task-setup-"));
    writeFileSync(join(dir, "prolog"), "#!/bin/sh\necho export TP=from_prolog\necho print hello-prolog\n", { mode: 0o755 });
    writeFileSync(join(dir, "epilog"), `#!/bin/sh\necho done > ${dir}/epilog.out\n`, { mode: 0o755 });
    const argv = withTaskSetup({ softLimits: {}, taskProlog: join(dir, "prolog"), taskEpilog: join(dir, "epilog") }, ["/bin/sh", "-c", "echo TP=$TP"]);
    const [cmd, ...args] = argv;
    const r = spawnSync(cmd ?? "", args, { encoding: "utf8" });
    expect(r.stdout).toBe("hello-prolog\nTP=from_prolog\n");
    expect(spawnSync("cat", [join(dir, "epilog.out")], { encoding: "utf8" }).stdout).toBe("done\n");
  });
});
