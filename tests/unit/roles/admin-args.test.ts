/**
 * Each `spur` sub-command's command line, parsed by citty against its declared args
 * (roles/admin/*.ts) and turned into the typed options its implementation takes: flag
 * spellings (`--x v`, `--x=v`, short aliases), defaults, and the operands.
 */
import { describe, expect, it } from "vitest";
import { clusterArgs, upArgs, upOptionsOf } from "../../../src/roles/admin/up.ts";
import { initArgs, initFlagsOf } from "../../../src/roles/admin/init.ts";
import { execArgs, execFlagsOf } from "../../../src/roles/admin/exec.ts";
import { addArgs, removeArgs } from "../../../src/roles/admin/controller.ts";
import { checkArgs, checkFlagsOf } from "../../../src/roles/admin/check.ts";
import { importSlurmArgs, importSlurmFlagsOf } from "../../../src/roles/admin/import-slurm.ts";
import { applyArgs, initArgs as netInitArgs, keygenArgs, netApplyFlagsOf, netInitFlagsOf } from "../../../src/roles/admin/net.ts";
import { systemdUnitsArgs, systemdUnitsFlagsOf } from "../../../src/roles/admin/systemd-units.ts";
import { tlsCertArgs, tlsCertFlagsOf } from "../../../src/roles/admin/tls-cert.ts";
import { simArgs, simFlagsOf } from "../../../src/roles/admin/sim.ts";
import { cdiFlagsOf, generateArgs } from "../../../src/roles/admin/cdi.ts";
import { initOptions } from "../../../src/roles/spur-init.ts";
import { argsOf, line } from "./admin-line.ts";

/** The args of a command whose declarations its module does not export (down, authd, install-links, version). */
const argsOfLine = async (...argv: string[]) => {
  const l = await line(...argv);
  if (l.kind !== "run") throw new Error(`spur ${argv.join(" ")}: ${l.kind}`);
  return l.args;
};

describe("spur up / demo", () => {
  it("takes every flag in both spellings, -d, and fills the defaults", async () => {
    const a = await argsOf(upArgs, "up", "-d", "--state-dir=/tmp/x", "--nodes", "2", "--gpus-per-node=8", "--gpu-model", "mi300x", "--controllers", "3", "--tls");
    expect(a.detach).toBe(true);
    expect(upOptionsOf(a, a["state-dir"])).toEqual({
      stateDir: "/tmp/x", nodes: 2, cpusPerNode: 4, socketsPerNode: 1, threadsPerCore: 1, memPerNodeMiB: 4000, gpusPerNode: 8, gpuModel: "mi300x",
      gpuTopology: "xgmi", nodesPerSwitch: 0, slurmdTimeoutSec: 30, controllers: 3, tls: true,
    });
  });
  it("defaults alone: the README's four-node cluster in /tmp/spur, attached", async () => {
    const a = await argsOf(upArgs, "up");
    expect([a.detach, a.netns, a["slurm-conf"]]).toEqual([undefined, undefined, undefined]);
    expect(upOptionsOf(a, a["state-dir"])).toMatchObject({ stateDir: "/tmp/spur", nodes: 4, cpusPerNode: 4, memPerNodeMiB: 4000, controllers: 1 });
  });
  it("--netns and its companions, --slurm-conf, --devices-root", async () => {
    const a = await argsOf(upArgs, "up", "--netns", "--login", "--auth", "munge", "--overlay=wireguard", "--slurm-conf", "/etc/slurm", "--site-ports", "--devices-root", "/snap");
    expect([a.netns, a.login, a.auth, a.overlay, a["slurm-conf"], a["site-ports"]]).toEqual([true, true, "munge", "wireguard", "/etc/slurm", true]);
    expect(upOptionsOf(a, "/s").devicesRoot).toBe("/snap");
  });
  it("refuses a number that is not whole", async () => {
    const a = await argsOf(upArgs, "up", "--nodes", "two");
    expect(() => upOptionsOf(a, "/s")).toThrow('spur: error: --nodes takes a whole number, got "two"');
    const empty = await argsOf(upArgs, "up", "--cpus-per-node=");
    expect(() => upOptionsOf(empty, "/s")).toThrow('spur: error: --cpus-per-node takes a whole number, got ""');
  });
  it("demo takes the cluster's shape only (its state directory is its own)", async () => {
    const a = await argsOf(clusterArgs, "demo", "--nodes", "1", "--cpus-per-node", "8");
    expect(upOptionsOf(a, "")).toMatchObject({ nodes: 1, cpusPerNode: 8 });
    expect(await line("demo", "--state-dir", "/x")).toMatchObject({ kind: "refused" });
    expect(await line("demo", "--detach")).toMatchObject({ kind: "refused" });
  });
});

describe("spur down", () => {
  it("--state-dir, default /tmp/spur", async () => {
    expect((await argsOfLine("down"))["state-dir"]).toBe("/tmp/spur");
    expect((await argsOfLine("down", "--state-dir", "/tmp/c"))["state-dir"]).toBe("/tmp/c");
  });
});

describe("spur init", () => {
  it("gives spur-init its flags, with the defaults", async () => {
    const f = initFlagsOf(await argsOf(initArgs, "init", "--controllers", "c1,c2,c3", "--raft-port=7000", "--tls", "--tls-hosts", "n1,n2", "--force"));
    expect(f).toEqual({
      controllers: "c1,c2,c3", port: "6817", raftPort: "7000", conf: "/etc/spur/spur.conf", name: "spur", secretFile: undefined,
      stateDir: "/var/spool/spur/ctld", spoolDir: "/var/spool/spur/d", tls: true, tlsHosts: "n1,n2", force: true,
    });
    expect(initOptions(f)).toMatchObject({ hosts: ["c1", "c2", "c3"], port: 6817, raftPort: 7000, secretPath: "/etc/spur/cluster-secret" });
  });
});

describe("spur authd", () => {
  it("--conf and --host, neither required", async () => {
    expect(await argsOfLine("authd", "--conf", "/etc/spur/spur.conf", "--host", "login1")).toMatchObject({ conf: "/etc/spur/spur.conf", host: "login1" });
    const none = await argsOfLine("authd");
    expect([none.conf, none.host]).toEqual([undefined, undefined]);
  });
});

describe("spur exec", () => {
  it("HOST, -u/--user, --state-dir, and the command after --, its own flags included", async () => {
    const argv = ["n2", "-u", "alice", "--state-dir", "/tmp/c", "--", "sinfo", "-h", "--json"];
    expect(execFlagsOf(await argsOf(execArgs, "exec", ...argv), argv)).toEqual({ host: "n2", user: "alice", stateDir: "/tmp/c", cmd: ["sinfo", "-h", "--json"] });
  });
  it("no host before `--` is no host (the command's words are not exec's)", async () => {
    const argv = ["--", "true"];
    expect(execFlagsOf(await argsOf(execArgs, "exec", ...argv), argv)).toEqual({ host: undefined, user: undefined, stateDir: undefined, cmd: ["true"] });
  });
});

describe("spur controller", () => {
  it("add ID HOST:PORT:RAFTPORT, remove ID --force", async () => {
    expect(await argsOf(addArgs, "controller", "add", "4", "127.0.0.1:7017:7018")).toMatchObject({ id: "4", address: "127.0.0.1:7017:7018" });
    expect(await argsOf(removeArgs, "controller", "remove", "--force", "2")).toMatchObject({ id: "2", force: true });
    expect(await line("controller", "add", "4", "--force")).toMatchObject({ kind: "refused" });
  });
});

describe("spur install-links", () => {
  it("one directory", async () => {
    expect((await argsOfLine("install-links", "/usr/local/bin")).dir).toBe("/usr/local/bin");
    expect((await argsOfLine("install-links")).dir).toBeUndefined();
  });
});

describe("spur check", () => {
  it("--json and any number of paths", async () => {
    expect(checkFlagsOf(await argsOf(checkArgs, "check", "a.sh", "--json", "dir"))).toEqual({ json: true, paths: ["a.sh", "dir"] });
    expect(checkFlagsOf(await argsOf(checkArgs, "check"))).toEqual({ json: undefined, paths: [] });
  });
});

describe("spur import-slurm", () => {
  it("DIR, -o/--output FILE, --force", async () => {
    expect(importSlurmFlagsOf(await argsOf(importSlurmArgs, "import-slurm", "/etc/slurm", "-o", "spur.conf"))).toEqual({ target: "/etc/slurm", output: "spur.conf", force: undefined });
    expect(importSlurmFlagsOf(await argsOf(importSlurmArgs, "import-slurm", "--output=x.conf", "--force", "slurm.conf"))).toEqual({ target: "slurm.conf", output: "x.conf", force: true });
  });
});

describe("spur net", () => {
  it("keygen --key-file", async () => {
    expect((await argsOf(keygenArgs, "net", "keygen"))["key-file"]).toBe("/etc/spur/wg.key");
    expect((await argsOf(keygenArgs, "net", "keygen", "--key-file", "/k"))["key-file"]).toBe("/k");
  });
  it("init PLAN --out --key-file", async () => {
    expect(netInitFlagsOf(await argsOf(netInitArgs, "net", "init", "plan.json", "--out", "wg"))).toEqual({ plan: "plan.json", out: "wg", keyFile: "/etc/spur/wg.key" });
  });
  it("apply CONF --interface, -n/--dry-run", async () => {
    expect(netApplyFlagsOf(await argsOf(applyArgs, "net", "apply", "c.conf", "-n"))).toEqual({ conf: "c.conf", iface: "spur0", dryRun: true });
    expect(netApplyFlagsOf(await argsOf(applyArgs, "net", "apply", "--interface=wg1", "c.conf"))).toEqual({ conf: "c.conf", iface: "wg1", dryRun: undefined });
  });
});

describe("spur systemd-units", () => {
  it("--dir, --bin-dir, --conf, --force", async () => {
    expect(systemdUnitsFlagsOf(await argsOf(systemdUnitsArgs, "systemd-units", "--bin-dir", "/opt/spur/bin", "--dir", "/etc/systemd/system", "--force"))).toEqual({
      dir: "/etc/systemd/system", binDir: "/opt/spur/bin", confPath: "/etc/spur/spur.conf", force: true,
    });
  });
});

describe("spur tls-cert", () => {
  it("--out-dir, --ca-dir, --host, --days", async () => {
    expect(tlsCertFlagsOf(await argsOf(tlsCertArgs, "tls-cert", "--host", "rest1"))).toEqual({ outDir: ".", caDir: undefined, host: "rest1", days: "825" });
    expect(tlsCertFlagsOf(await argsOf(tlsCertArgs, "tls-cert", "--ca-dir", "/tls", "--host", "c1,c2", "--days=30"))).toEqual({ outDir: ".", caDir: "/tls", host: "c1,c2", days: "30" });
  });
});

describe("spur sim", () => {
  it("the trace or synthetic workload, the machine, the scheduler", async () => {
    expect(simFlagsOf(await argsOf(simArgs, "sim", "--synthetic", "500", "--nodes", "64", "--cpus-per-node=2", "--seed", "7", "--load", "0.9", "--json"))).toEqual({
      trace: undefined, limit: undefined, synthetic: "500", load: "0.9", nodes: "64", cpusPerNode: "2", scheduler: "both", seed: "7", json: true,
    });
    expect(simFlagsOf(await argsOf(simArgs, "sim", "--trace", "t.swf.gz", "--limit", "100", "--scheduler", "backfill"))).toMatchObject({ trace: "t.swf.gz", limit: "100", scheduler: "backfill" });
  });
});

describe("spur cdi generate", () => {
  it("--vendor, --format, --root, --output", async () => {
    expect(cdiFlagsOf(await argsOf(generateArgs, "cdi", "generate", "--vendor", "amd", "--format=yaml", "--output", "/etc/cdi"))).toEqual({ vendor: "amd", format: "yaml", root: "/", output: "/etc/cdi" });
  });
});

describe("spur version", () => {
  it("takes nothing", async () => {
    expect(await line("version")).toMatchObject({ kind: "run", path: ["spur", "version"] });
    expect(await line("version", "now")).toMatchObject({ kind: "refused" });
  });
});
