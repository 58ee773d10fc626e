/**
 * End-to-end: node agents and the controller authenticate each other with the cluster
 * secret (SpurClusterSecretFile=, net/cluster-auth). With the right secret a job runs
 * (agent -> controller registration and completion, controller -> agent launch, all
 * signed); an agent holding another secret is refused and the controller logs why.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Cluster, eventually, jobState, startCluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2"]);
  const secret = join(c.dir, "cluster-secret");
  writeFileSync(secret, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  c.reconfigure(`SpurClusterSecretFile=${secret}`);
});
afterAll(() => c?.down());

const ctldLog = () => readFileSync(join(c.dir, "cluster", "log", "spurctld.log"), "utf8");

describe("agents authenticated by the cluster secret", () => {
  it("runs a job when both sides hold the secret", async () => {
    const sub = c.run(["sbatch", "--parsable", "-w", "n1", "--wrap", "true"]);
    expect(sub.stderr).toBe("");
    const id = sub.stdout.trim();
    await eventually("job completed", () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
    expect(ctldLog()).not.toContain("refused an unauthenticated node agent");
  }, 90_000);

  it("refuses an agent with another secret and logs why", async () => {
    process.kill(c.pid("spurd-n2"), "SIGKILL");
    const wrongSecret = join(c.dir, "wrong-secret");
    writeFileSync(wrongSecret, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    // Inside the state directory: `spur down` stops only daemons whose command line names it.
    const wrongConf = join(c.dir, "cluster", "wrong.conf");
    writeFileSync(wrongConf, readFileSync(c.conf, "utf8").replace(/^SpurClusterSecretFile=.*$/m, `SpurClusterSecretFile=${wrongSecret}`));
    c.startDaemon("spurd-n2", ["spurd", "-N", "n2", "--conf", wrongConf]);
    const line = await eventually("a refusal in the controller log", () => ctldLog().split("\n").find((l) => l.includes("refused an unauthenticated node agent")), 30_000);
    expect(line).toContain("cluster credential does not match this controller's secret");
    expect(line).toContain("RegisterNode");
  }, 60_000);
});
