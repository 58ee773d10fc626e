/**
 * @module tests/unit/raft/spur-init
 * `spur init`: the configuration it plans parses back into the controller list the
 * daemons use, with distinct ports when replicas share a host.
 */
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { controllerPeers, controllerUrls } from "../../../src/roles/conf-file.ts";
import { initOptions, planInit } from "../../../src/roles/spur-init.ts";
import { initArgs, initFlagsOf } from "../../../src/roles/admin/init.ts";
import { argsOf } from "../roles/admin-line.ts";

/** `spur init ARGV...`'s options, through its command line. */
const options = async (...argv: string[]) => initOptions(initFlagsOf(await argsOf(initArgs, "init", ...argv)));

const parse = (text: string) => {
  const r = parseConf(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("spur init", () => {
  it("plans three controllers on separate hosts with the same ports", async () => {
    const plan = planInit(await options("--controllers", "c1,c2,c3", "--conf", "/etc/spur/spur.conf", "--name", "hpc"));
    const conf = parse(plan.conf);
    expect(controllerPeers(conf)).toEqual([
      { id: 1, host: "c1", port: 6817, raftPort: 6818, url: "http://c1:6817" },
      { id: 2, host: "c2", port: 6817, raftPort: 6818, url: "http://c2:6817" },
      { id: 3, host: "c3", port: 6817, raftPort: 6818, url: "http://c3:6817" },
    ]);
    expect(conf.globals.get("clustername")).toBe("hpc");
    expect(conf.globals.get("spurclustersecretfile")).toBe("/etc/spur/cluster-secret");
    expect(plan.commands).toEqual(["on c1: spurctld --id 1 --conf /etc/spur/spur.conf", "on c2: spurctld --id 2 --conf /etc/spur/spur.conf", "on c3: spurctld --id 3 --conf /etc/spur/spur.conf"]);
  });

  it("gives replicas on one host their own ports", async () => {
    const conf = parse(planInit(await options()).conf);
    expect(controllerUrls(conf)).toEqual(["http://127.0.0.1:6817", "http://127.0.0.1:6827", "http://127.0.0.1:6837"]);
    expect(controllerPeers(conf).map((p) => p.raftPort)).toEqual([6818, 6828, 6838]);
  });

  it("refuses an even number of controllers", async () => {
    await expect(options("--controllers", "a,b")).rejects.toThrow(/odd number/);
  });
});
