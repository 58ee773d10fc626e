/**
 * @module tests/unit/raft/slurmctld-hosts
 * Slurm's syntax for several controllers: repeated SlurmctldHost= lines are read as the
 * replicated controllers (ids in file order, SlurmctldPort, Raft on the next port);
 * SpurControllers= wins when both are given; one line is still a single controller.
 */
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { controllerAddress, controllerPeers, controllerUrls } from "../../../src/roles/conf-file.ts";

const parse = (text: string) => {
  const r = parseConf(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("several SlurmctldHost= lines", () => {
  it("are the replicas, in file order", () => {
    const conf = parse("ClusterName=c\nSlurmctldHost=ctl1(10.0.0.1)\nSlurmctldHost=ctl2\nSlurmctldHost=ctl3(10.0.0.3)\nSlurmctldPort=6900-6901\n");
    expect(controllerPeers(conf)).toEqual([
      { id: 1, host: "10.0.0.1", port: 6900, raftPort: 6901, url: "http://10.0.0.1:6900" },
      { id: 2, host: "ctl2", port: 6900, raftPort: 6901, url: "http://ctl2:6900" },
      { id: 3, host: "10.0.0.3", port: 6900, raftPort: 6901, url: "http://10.0.0.3:6900" },
    ]);
    expect(controllerUrls(conf)).toEqual(["http://10.0.0.1:6900", "http://ctl2:6900", "http://10.0.0.3:6900"]);
    // The first line is Slurm's primary: the single-controller address is its.
    expect(controllerAddress(conf).host).toBe("10.0.0.1");
  });

  it("give way to SpurControllers=, and one line is one controller", () => {
    expect(controllerPeers(parse("SlurmctldHost=a\nSlurmctldHost=b\nSpurControllers=7@h:1:2\n")).map((p) => p.id)).toEqual([7]);
    expect(controllerPeers(parse("SlurmctldHost=a(127.0.0.1)\n"))).toEqual([]);
  });
});
