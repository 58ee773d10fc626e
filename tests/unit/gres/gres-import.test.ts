/**
 * `spur import-slurm` with counted GRES: GresTypes naming more than gpu is carried,
 * NodeName Gres= keeps the items GresTypes names, gres.conf Count= (K/M/G suffixes)
 * is checked against them, and the result is a spur.conf the controller reads.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../../src/sched/model/state.ts";
import { importSlurm } from "../../../src/ops/import-slurm.ts";

const SITE = resolve(__dirname, "../../fixtures/ops/slurm-site-gres");
const read = (name: string) => readFileSync(resolve(SITE, name), "utf8");

describe("import of counted GRES", () => {
  it("carries GresTypes and the nvme counts, and the controller reads them", () => {
    const r = importSlurm({ slurmConf: read("slurm.conf"), gresConf: read("gres.conf") });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.spurConf).toMatch(/^GresTypes=gpu,nvme,shard$/m);
    expect(r.value.spurConf).toMatch(/^NodeName=n1 .*Gres=nvme:2$/m);
    expect(r.value.spurConf).toMatch(/^NodeName=n3 .*Gres=gpu:mi300x:2,shard:4$/m);
    expect(r.value.notes.filter((n) => n.file === "gres.conf" && n.key === "Count")).toEqual([]);
    const conf = parseConf(r.value.spurConf);
    if (!conf.ok) throw new Error(conf.error.message);
    const state = createState(conf.value);
    if (!state.ok) throw new Error(state.error.message);
    expect(state.value.nodes.get("n2")?.info).toMatchObject({ gresGeneric: "nvme:2", gresTracked: "nvme" });
  });

  it("drops a GRES GresTypes does not name, and notes a gres.conf Count= the NodeName line disagrees with", () => {
    const slurmConf = "GresTypes=gpu,bandwidth\nNodeName=a1 CPUs=2 Gres=fpga:1,bandwidth:lustre:4G\n";
    const r = importSlurm({ slurmConf, gresConf: "NodeName=a1 Name=bandwidth Type=lustre Count=2G\n" });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.spurConf).toMatch(/^NodeName=a1 .*Gres=bandwidth:lustre:4G$/m);
    expect(r.value.notes.find((n) => n.value === "fpga:1")?.reason).toMatch(/not in GresTypes/);
    expect(r.value.notes.find((n) => n.file === "gres.conf" && n.key === "Count")?.reason).toBe("a1 has bandwidth:lustre:4G on its NodeName line; that is what Spur counts");
  });

  it("leaves GresTypes=gpu out (Spur knows GPUs without it)", () => {
    const r = importSlurm({ slurmConf: "GresTypes=gpu\nNodeName=a1 CPUs=2 Gres=gpu:2\n" });
    expect(r.ok && r.value.spurConf).not.toMatch(/GresTypes/);
  });
});
