/**
 * `spur up --netns`'s layout (ops/netns-plan): distinct names and addresses per host, a
 * plan that depends only on the state directory, Linux's 15-character interface names,
 * and one spur.conf with every host's address and per-host paths.
 */
import { describe, expect, it } from "vitest";
import { hostTable, netnsConf, overlayInput, planNetns, withOverlay } from "../../../src/ops/netns-plan.ts";
import { topsUnderTmp } from "../../../src/roles/netns-cluster.ts";

describe("netns plan", () => {
  it("gives every host its own namespace, veth and address, from the state directory alone", () => {
    const p = planNetns("/tmp/a", 4, 3, true);
    expect(p.hosts.map((h) => `${h.name}:${h.role}`)).toEqual(["c1:controller", "c2:controller", "c3:controller", "n1:node", "n2:node", "n3:node", "n4:node", "login:login"]);
    for (const key of ["addr", "netns", "veth"] as const) expect(new Set(p.hosts.map((h) => h[key])).size).toBe(p.hosts.length);
    for (const name of [p.bridge, ...p.hosts.map((h) => h.veth)]) expect(name.length).toBeLessThanOrEqual(15);
    expect(planNetns("/tmp/a", 4, 3, true)).toEqual(p);
    expect(planNetns("/tmp/b", 4, 3, true).tag).not.toBe(p.tag);
    expect(() => planNetns("/tmp/a", 0, 1, false)).toThrow(/1 to 150 nodes/);
  });

  it("writes one conf naming each controller and node by address, with auth/spur and per-host sockets", () => {
    const p = planNetns("/s", 2, 3, true);
    const conf = netnsConf(p, { stateDir: "/s", cpusPerNode: 2, memPerNodeMiB: 1000, gpusPerNode: 0, gpuModel: "", slurmdTimeoutSec: 5, authType: "auth/spur" });
    const c1 = p.hosts.find((h) => h.name === "c1");
    const n2 = p.hosts.find((h) => h.name === "n2");
    expect(conf).toContain(`SlurmctldHost=c1(${c1?.addr})`);
    expect(conf).toContain(`NodeName=n2 NodeAddr=${n2?.addr} Port=6818 CPUs=2 RealMemory=1000`);
    expect(conf).toContain("AuthType=auth/spur");
    expect(conf).toContain("SpurAuthSocket=/s/hosts/%h/auth.sock");
    expect(conf).toContain("SpurLoginHosts=login");
    expect(conf).not.toContain("127.0.0.1");
  });

  it("with an overlay, names every host by its overlay address and gives each a distinct short interface", () => {
    const p = planNetns("/s", 2, 1, true);
    expect(overlayInput(p).sites[0]?.nodes.map((n) => n.endpoint)).toEqual(p.hosts.map((h) => `${h.addr}:51820`));
    const o = withOverlay(p, new Map(p.hosts.map((h, i) => [h.name, `10.96.0.${i + 1}`])));
    const conf = netnsConf(o, { stateDir: "/s", cpusPerNode: 1, memPerNodeMiB: 100, gpusPerNode: 0, gpuModel: "", slurmdTimeoutSec: 5, authType: "auth/spur" });
    expect(conf).toContain("SlurmctldHost=c1(10.96.0.1)");
    expect(conf).toContain("NodeName=n1 NodeAddr=10.96.0.2 ");
    expect(new Set(o.hosts.map((h) => h.wgIface)).size).toBe(o.hosts.length);
    for (const h of o.hosts) expect((h.wgIface ?? "").length).toBeLessThanOrEqual(15);
    expect(hostTable(o)).toMatch(/^c1\s+controller\s+\S+\s+10\.96\.0\.1 \(wg/m);
    expect(() => withOverlay(p, new Map())).toThrow(/no address for c1/);
  });
});

describe("what a host with its own /tmp must still see", () => {
  it("binds back the top directory under /tmp of the state directory and of the program", () => {
    expect(topsUnderTmp(["/tmp/spur-mh-x/state", "/tmp/ci-check/dist/spur", "/tmp/ci-check/src/main.ts", "/work/main/dist/spur", "/tmp"])).toEqual([
      "/tmp/spur-mh-x", "/tmp/ci-check",
    ]);
  });
});
