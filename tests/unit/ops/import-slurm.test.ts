/**
 * @module tests/unit/ops/import-slurm
 * `spur import-slurm` on the oracle's own configuration (tests/fixtures/ops/slurm-oracle,
 * as /work/shared/oracle/slurm-up.sh writes it) and on a larger site sample: the spur.conf
 * it writes must build, with createState, the nodes, partitions and GPUs real Slurm showed
 * (golden 015, 018), and every setting it did not carry over must be in the report.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../../src/sched/model/state.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { readRecords } from "../../../src/ops/conf-records.ts";
import { formatImportReport, importSlurm, type ImportResult } from "../../../src/ops/import-slurm.ts";
import { importSlurmMain } from "../../../src/ops/import-slurm-cli.ts";
import { readGolden } from "../options/helpers.ts";

const FIX = resolve(import.meta.dirname, "../../fixtures/ops");
const read = (dir: string, f: string): string | undefined =>
  existsSync(join(FIX, dir, f)) ? readFileSync(join(FIX, dir, f), "utf8") : undefined;

function imported(dir: string): ImportResult {
  const r = importSlurm({
    dir, slurmConf: read(dir, "slurm.conf") ?? "", gresConf: read(dir, "gres.conf"),
    topologyConf: read(dir, "topology.conf"), cgroupConf: read(dir, "cgroup.conf"),
  });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function stateOf(spurConf: string): ClusterState {
  const parsed = parseConf(spurConf);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const st = createState(parsed.value);
  if (!st.ok) throw new Error(st.error.message);
  return st.value;
}

/** "Key=Value" fields of one `scontrol show node` record (golden text). */
function goldenNodes(): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const block of readGolden("018-scontrol-show-node-all.txt").stdout.split("\n\n")) {
    const fields = new Map([...block.matchAll(/(\w+)=(\S*)/g)].map((m) => [m[1] ?? "", m[2] ?? ""]));
    const name = fields.get("NodeName");
    if (name !== undefined) out.set(name, fields);
  }
  return out;
}

describe("import of the oracle cluster's slurm.conf + gres.conf", () => {
  const result = imported("slurm-oracle");
  const state = stateOf(result.spurConf);

  it("builds 4 nodes, 2 partitions and 8 GPUs on each of n3 and n4", () => {
    expect([...state.nodes.keys()]).toEqual(["n1", "n2", "n3", "n4"]);
    expect(state.partitions.map((p) => [p.info.name, p.info.nodes, p.info.isDefault])).toEqual([
      ["debug", "n[1-4]", true], ["gpu", "n[3-4]", false],
    ]);
    expect([...state.nodes.values()].map((n) => [n.info.name, n.info.gpuModel, n.info.gpuCount])).toEqual([
      ["n1", "", 0], ["n2", "", 0], ["n3", "mi300x", 8], ["n4", "mi300x", 8],
    ]);
    expect(result).toMatchObject({ nodeCount: 4, partitionCount: 2, gpuCount: 16 });
  });

  it("matches what real Slurm showed for every node (golden 018)", () => {
    const golden = goldenNodes();
    expect([...golden.keys()]).toEqual(["n1", "n2", "n3", "n4"]);
    for (const [name, g] of golden) {
      const n = state.nodes.get(name)?.info;
      const gres = n === undefined || n.gpuCount === 0 ? "(null)" : `gpu:${n.gpuModel}:${n.gpuCount}`;
      expect([name, n?.cpus, n?.realMemoryMib, n?.sockets, n?.coresPerSocket, n?.threadsPerCore, n?.addr, n?.hostname,
        n?.port, gres, n?.tmpDiskMib, n?.weight, n?.partitions.join(",")]).toEqual([
        name, Number(g.get("CPUTot")), Number(g.get("RealMemory")), Number(g.get("Sockets")), Number(g.get("CoresPerSocket")),
        Number(g.get("ThreadsPerCore")), g.get("NodeAddr"), g.get("NodeHostName"), Number(g.get("Port")),
        (g.get("Gres") ?? "").replace(/\(S:[^)]*\)$/, ""), Number(g.get("TmpDisk")), Number(g.get("Weight")), g.get("Partitions"),
      ]);
    }
  });

  it("matches the partitions real Slurm showed (golden 015: TRES, totals, limits)", () => {
    const text = readGolden("015-scontrol-show-partition.txt").stdout;
    for (const p of state.partitions) {
      const block = text.split("\n\n").find((b) => b.startsWith(`PartitionName=${p.info.name}\n`)) ?? "";
      expect(block).toContain(`TRES=${p.info.tres}`);
      expect(block).toContain(`TotalCPUs=${p.info.totalCpus} TotalNodes=${p.info.totalNodes}`);
      expect(block).toContain(`MaxTime=${p.info.maxTimeMin === undefined ? "UNLIMITED" : p.info.maxTimeMin}`);
      expect(block).toContain(`State=${p.info.state}`);
    }
  });

  it("carries the scheduler's priority weights as written, with a note saying who reads them", () => {
    expect(result.spurConf).toContain("PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n");
    expect(result.notes.find((n) => n.key === "PriorityWeightFairshare")).toMatchObject({ kind: "advice", line: 35 });
  });

  it("carries the controller settings Spur reads", () => {
    expect(state.config).toMatchObject({ clusterName: "oracle", defMemPerCpuMiB: 256, maxJobCount: 20000 });
    const conf = parseConf(result.spurConf);
    expect(conf.ok && [conf.value.globals.get("controladdr"), conf.value.globals.get("controlport")]).toEqual(["localhost", "6817"]);
    expect(conf.ok && conf.value.globals.get("slurmdspooldir")).toBe("/tmp/slurm-oracle/spool/slurmd.%n");
  });
});

/** Every key of every slurm.conf record is either written to spur.conf or named in a note. */
function expectAccounted(dir: string, result: ImportResult): void {
  const recs = readRecords(read(dir, "slurm.conf") ?? "", "slurm.conf");
  if (!recs.ok) throw new Error(recs.error.message);
  const consumed = new Set(["slurmctldhost", "slurmctldport", "slurmdport", "nodename", "partitionname", "boards", "socketsperboard", "state"]);
  for (const rec of recs.value) {
    for (const [k, v] of rec.pairs) {
      if (consumed.has(k.toLowerCase()) || v.toUpperCase() === "DEFAULT") continue;
      const written = result.spurConf.toLowerCase().includes(`${k.toLowerCase()}=`);
      const noted = result.notes.some((n) => n.file === "slurm.conf" && n.key === k);
      expect(written || noted, `${dir} slurm.conf:${rec.line} ${k}=${v}`).toBe(true);
    }
  }
}

describe("import of a larger site", () => {
  const result = imported("slurm-site");
  const state = stateOf(result.spurConf);

  it("folds NodeName=DEFAULT / PartitionName=DEFAULT and expands ranges one node per line", () => {
    expect(state.nodes.size).toBe(7);
    const gpu01 = state.nodes.get("gpu01")?.info;
    expect(gpu01).toMatchObject({ addr: "10.2.0.1", port: 6818, sockets: 2, coresPerSocket: 32, threadsPerCore: 2,
      cpus: 128, realMemoryMib: 512000, tmpDiskMib: 100000, weight: 100, gpuModel: "a100", gpuCount: 4 });
    expect(state.nodes.get("cpu003")?.info).toMatchObject({ addr: "10.1.0.3", features: "epyc,ib", weight: 10 });
    expect(state.partitions.map((p) => [p.info.name, p.info.maxTimeMin, p.info.totalNodes])).toEqual([
      ["cpu", 2880, 4], ["gpu", 2880, 3], ["all", 2880, 7],
    ]);
    expect(state.partitions[2]?.info).toMatchObject({ priorityTier: 5, priorityJobFactor: 5, hidden: true, rootOnly: true, graceTimeSec: 120 });
    expect(state.config).toMatchObject({ firstJobId: 1000, slurmdTimeoutSec: 120, minJobAgeSec: 600, killWaitSec: 45, maxArraySize: 4001 });
  });

  it("notes what it could not carry over, once each, where it was written", () => {
    const text = formatImportReport(result);
    expect(text).toContain("slurm.conf:4: not carried over: SlurmctldHost=ctl2(10.0.0.2): backup controllers");
    expect(text).toContain("slurm.conf:5: changed: SlurmctldPort=6817-6818");
    expect(text).toContain("slurm.conf:20: not carried over: Gres=nic:2");
    expect(text).toContain("slurm.conf:22: changed: Gres=gpu:h100:4,gpu:a100:4: Spur knows one GPU model per node: 8 GPUs");
    expect(text).toContain("slurm.conf:22: not carried over: State=FUTURE");
    expect(text).toContain("slurm.conf:26: changed: Shared=FORCE:2: written as OverSubscribe=");
    expect(text).toContain("gres.conf:4: not carried over: NodeName=cpu001: gres.conf gives cpu001 1 gpu");
    expect(text).toContain("topology.conf:3: not carried over: Switches=s[1-2]");
    expect(text).not.toContain("cgroup.conf:"); // every switch of the sample is carried over
    expect(result.spurConf).toContain("# From cgroup.conf (what spurd enforces with cgroups):\nConstrainCores=yes\nConstrainRAMSpace=yes\nConstrainDevices=yes\n");
    expect(result.notes.filter((n) => n.key === "DefMemPerCPU").map((n) => n.line)).toEqual([24]);
    expect(result.spurConf).toContain("# SwitchName=top Switches=s[1-2]\n");
    expect(result.spurConf).toContain("ControlAddr=10.0.0.1\nControlPort=6817\n");
  });

  it("accounts for every setting of both samples", () => {
    expectAccounted("slurm-site", result);
    expectAccounted("slurm-oracle", imported("slurm-oracle"));
  });

  it("refuses configurations it cannot read, saying where", () => {
    expect(importSlurm({ slurmConf: "ClusterName=x\n" })).toMatchObject({ ok: false, error: { message: "slurm.conf has no NodeName lines" } });
    expect(importSlurm({ slurmConf: "NodeName=a[1-2] NodeAddr=x[1-3]\n" })).toMatchObject({ ok: false, error: { message: expect.stringContaining("slurm.conf line 1") } });
    expect(importSlurm({ slurmConf: "ClusterName=x junk\n" })).toMatchObject({ ok: false, error: { message: 'slurm.conf line 1: cannot parse "junk"' } });
  });
});

describe("spur import-slurm command", () => {
  it("prints spur.conf and the report, or writes the file (never over one without --force)", () => {
    const dir = join(FIX, "slurm-oracle");
    const printed = importSlurmMain({ target: dir });
    expect(printed.exitCode).toBe(0);
    expect(printed.stdout).toBe(imported("slurm-oracle").spurConf.replace("from slurm-oracle/", `from ${dir}/`));
    expect(printed.stderr).toContain("imported 4 nodes, 2 partitions, 16 GPUs;");
    const out = join(mkdtempSync(join(tmpdir(), "spur-import-")), "spur.conf");
    expect(importSlurmMain({ target: dir, output: out }).exitCode).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(printed.stdout);
    expect(importSlurmMain({ target: dir, output: out })).toMatchObject({ exitCode: 1, stderr: expect.stringContaining("--force") });
    expect(importSlurmMain({ target: dir, output: out, force: true }).exitCode).toBe(0);
    expect(importSlurmMain({ target: join(dir, "nope") }).exitCode).toBe(1);
    expect(importSlurmMain({}).exitCode).toBe(2);
  });
});
