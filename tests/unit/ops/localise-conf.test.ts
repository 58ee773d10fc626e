/**
 * @module tests/unit/ops/localise-conf
 * What `spur up --slurm-conf` changes in an imported spur.conf (addresses, ports, state
 * and spool directories) and what it must leave alone (nodes' sizes, GRES, partitions).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { importSlurm } from "../../../src/ops/import-slurm.ts";
import { localiseConf, nodeNamesOf } from "../../../src/ops/localise-conf.ts";

const FIX = resolve(import.meta.dirname, "../../fixtures/ops");

function importedSite(dir: string): string {
  const r = importSlurm({ slurmConf: readFileSync(resolve(FIX, dir, "slurm.conf"), "utf8") });
  if (!r.ok) throw new Error(r.error.message);
  return r.value.spurConf;
}

describe("localiseConf", () => {
  const site = importedSite("slurm-site");
  const names = nodeNamesOf(site);
  const ports = new Map(names.map((n, i) => [n, 40000 + i]));
  const out = localiseConf({ spurConf: site, stateDir: "/tmp/st/", controlPort: 39999, nodePorts: ports });

  it("puts every daemon on loopback, on the given ports, with state under the state directory", () => {
    expect(names.length).toBe(7);
    expect(out.spurConf).toMatch(/^ControlAddr=127\.0\.0\.1$/m);
    expect(out.spurConf).toMatch(/^ControlPort=39999$/m);
    expect(out.spurConf).toMatch(/^StateSaveLocation=\/tmp\/st\/ctld$/m);
    expect(out.spurConf).toMatch(/^SlurmdSpoolDir=\/tmp\/st\/spool$/m);
    for (const [name, port] of ports) {
      const line = out.spurConf.split("\n").find((l) => l.startsWith(`NodeName=${name} `)) ?? "";
      expect(line).toContain(" NodeAddr=127.0.0.1 ");
      expect(line).toContain(` Port=${port}`);
    }
  });

  it("changes nothing else: removing the changed keys leaves the same text", () => {
    const strip = (t: string) =>
      t.split("\n").filter((l) => !/^(ControlAddr|ControlPort|StateSaveLocation|SlurmdSpoolDir)=/.test(l))
        .map((l) => l.replace(/ (NodeAddr|Port)=\S+/g, "")).join("\n");
    expect(strip(out.spurConf)).toBe(strip(site));
    expect(out.changes).toContain("global: ControlPort 6817 -> 39999");
  });

  it("keeps the site's ports when none are given, and adds keys a site did not set", () => {
    const bare = "ClusterName=x\nNodeName=a CPUs=2\nPartitionName=p Nodes=a\n";
    const r = localiseConf({ spurConf: bare, stateDir: "/s" });
    expect(r.spurConf).toBe(
      "ClusterName=x\nSlurmdSpoolDir=/s/spool\nStateSaveLocation=/s/ctld\nControlAddr=127.0.0.1\nNodeName=a CPUs=2 NodeAddr=127.0.0.1\nPartitionName=p Nodes=a\n",
    );
  });
});
