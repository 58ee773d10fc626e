/**
 * parseConf(text, { globalsOnly: true }): what a user command reads from spur.conf on every
 * call (roles/cli/client-env.ts). The globals (and every SlurmctldHost=) must be exactly those
 * of the full parse; only the NodeName=/PartitionName= records are left out.
 */
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";

const CONF = [
  "# a site's file",
  "ClusterName=site",
  "SlurmctldHost=ctl1(10.0.0.1)",
  "SlurmctldHost=ctl2(10.0.0.2)",
  "ControlPort=6817 SpurTlsCaFile=/etc/spur/ca-%h.pem",
  "NodeName=n[1-1000] CPUs=64 \\",
  "  RealMemory=512000 Gres=gpu:8",
  "  nodename=gpu[1-4] CPUs=8 # lower case too",
  "PartitionName=debug Nodes=ALL Default=YES",
  'SpurAllowPlaintext="yes" # quoted',
  "",
].join("\n");

describe("parseConf globals only", () => {
  it("gives the full parse's globals and controller hosts, without the records", () => {
    const full = parseConf(CONF);
    const globals = parseConf(CONF, { globalsOnly: true });
    if (!full.ok || !globals.ok) throw new Error("both parse");
    expect([...globals.value.globals]).toEqual([...full.value.globals]);
    expect(globals.value.slurmctldHosts).toEqual(full.value.slurmctldHosts);
    expect(full.value.nodes.length).toBe(2);
    expect(globals.value.nodes).toEqual([]);
    expect(globals.value.partitions).toEqual([]);
  });

  it("still refuses a malformed global line, not a malformed record", () => {
    expect(parseConf('ClusterName=x "dangling', { globalsOnly: true }).ok).toBe(false);
    expect(parseConf('NodeName=n1 "dangling', { globalsOnly: true }).ok).toBe(true);
    expect(parseConf('NodeName=n1 "dangling').ok).toBe(false);
  });
});
