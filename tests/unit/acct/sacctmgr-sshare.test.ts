/**
 * sacctmgr and sshare as pure functions over a port backed by a real
 * ClusterState (the same apply/preview/rows/fair-tree code the controller
 * runs): the confirmation prompt and -i, show with default columns, format=,
 * -n/-p/-P, where filters, errors; sshare's fair-tree rows and filters.
 */
import { describe, expect, it } from "vitest";
import { sacctmgrMain, parseSpecs } from "../../../src/cli/sacctmgr.ts";
import { sshareMain } from "../../../src/cli/sshare.ts";
import type { CliPort, ControllerPort } from "../../../src/net/ctl-port.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { previewAcct } from "../../../src/sched/acct/apply-acct-command.ts";
import { acctRows } from "../../../src/sched/acct/acct-rows.ts";
import { fairTree } from "../../../src/sched/acct/fair-tree.ts";
import { trackedTres } from "../../../src/sched/acct/share-columns.ts";
import type { AcctRequest } from "../../../src/sched/acct/apply-acct.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";

function fake(stdin = "", user = ROOT) {
  const c = cluster();
  let now = 100;
  const ctl = {
    acctModify: async (req: AcctRequest & { commit: boolean }) => {
      const request = { action: req.action, entity: req.entity, names: req.names, where: req.where, set: req.set };
      if (!req.commit) {
        const p = previewAcct(c.state, user, request);
        if (p.error) throw new RpcError("invalid_argument", p.error);
        return { text: p.text, changed: p.changed };
      }
      const r = c.run({ v: 1, type: "acct", at: now, request, by: user });
      if (r.error) throw new RpcError("invalid_argument", r.error);
      return { text: r.text ?? "", changed: r.ids[0] ?? 0 };
    },
    acctList: async (req: { entity: string; where: Record<string, string> }) => {
      const rows = acctRows(c.state, req.entity, req.where);
      if (typeof rows === "string") throw new RpcError("invalid_argument", rows);
      return { rows: rows.map((fields) => ({ fields })), cluster: "test" };
    },
    getShares: async () => ({ rows: fairTree(c.state, now, 0).rows.map((r) => ({ ...r, grpTresMins: "", tresRunMins: "" })), cluster: "test" }),
  } as unknown as ControllerPort;
  const port: CliPort = {
    ctl, invoker: { uid: user.uid, gid: user.gid, user: user.user, group: user.group, cwd: "/", hostname: "h" }, env: {},
    now: () => now, readFile: async () => undefined, readStdin: async () => stdin, write: () => undefined, sleep: async () => undefined,
  };
  return { c, port, setNow: (t: number) => (now = t) };
}

describe("sacctmgr", () => {
  it("parses names, where and set, keeping += and -= signs", () => {
    expect(parseSpecs(["alice,bob", "where", "Account=a", "set", "MaxJobs=2", "QOS+=high", "format=user"], "modify")).toEqual({
      names: ["alice", "bob"], where: { account: "a" }, set: { maxjobs: "2", qos: "+high" }, format: "user",
    });
    expect(parseSpecs(["physics", "Parent=root"], "add").set).toEqual({ parent: "root" });
  });

  it("asks before committing and discards on anything but y", async () => {
    const f = fake("n\n");
    const r = await sacctmgrMain(["add", "account", "physics"], f.port);
    expect(r.stdout).toContain(" Adding Account(s)\n  physics\n");
    expect(r.stdout).toContain("Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): \n Changes Discarded\n");
    expect(f.c.state.acct.accounts.has("physics")).toBe(false);
    const yes = fake("y\n");
    expect((await sacctmgrMain(["add", "account", "physics"], yes.port)).exitCode).toBe(0);
    expect(yes.c.state.acct.accounts.has("physics")).toBe(true);
  });

  it("commits at once with -i and shows records in sacctmgr's columns", async () => {
    const f = fake();
    await sacctmgrMain(["-i", "add", "account", "physics", "Description=Physics dept"], f.port);
    await sacctmgrMain(["-i", "add", "user", "alice", "Account=physics", "MaxJobs=3"], f.port);
    const acc = await sacctmgrMain(["show", "account"], f.port);
    expect(acc.stdout).toBe(
      "   Account                Descr                  Org \n---------- -------------------- -------------------- \n" +
        "   physics         Physics dept              physics \n      root default root account                 root \n",
    );
    const users = await sacctmgrMain(["-n", "show", "user"], f.port);
    expect(users.stdout).toBe("     alice    physics      None \n      root       root Administ+ \n");
    const assoc = await sacctmgrMain(["-P", "show", "assoc", "where", "user=alice", "format=account,user,maxjobs,qos"], f.port);
    expect(assoc.stdout).toBe("Account|User|MaxJobs|QOS\nphysics|alice|3|normal\n");
    const p = await sacctmgrMain(["-p", "-n", "list", "qos", "format=name,priority"], f.port);
    expect(p.stdout).toBe("normal|0|\n");
  });

  it("lists a user's associations newest first (slurmdbd's lft order) and with -s/withassoc (oracle 22.05)", async () => {
    const f = fake();
    await sacctmgrMain(["-i", "add", "account", "srpa"], f.port);
    await sacctmgrMain(["-i", "add", "user", "root", "Account=srpa"], f.port);
    // the tree order when no user is named: root's own associations, then sub-accounts
    expect((await sacctmgrMain(["-nP", "show", "assoc", "format=account,user"], f.port)).stdout).toBe("root|\nroot|root\nsrpa|\nsrpa|root\n");
    expect((await sacctmgrMain(["-nP", "show", "assoc", "user=root", "format=account"], f.port)).stdout).toBe("srpa\nroot\n");
    expect((await sacctmgrMain(["-n", "-s", "list", "user", "root", "format=account%6"], f.port)).stdout).toBe("  srpa \n  root \n");
    expect((await sacctmgrMain(["-nP", "list", "users", "root", "WithAssoc", "format=user,account,maxcpus"], f.port)).stdout).toBe("root|srpa|\nroot|root|\n");
    const head = (await sacctmgrMain(["--associations", "list", "user", "root"], f.port)).stdout.split("\n")[0];
    expect(head).toBe("      User   Def Acct     Admin    Cluster    Account  Partition     Share   Priority MaxJobs MaxNodes  MaxCPUs MaxSubmit     MaxWall  MaxCPUMins                  QOS   Def QOS ");
  });

  it("tree lists associations in tree order, each account one space deeper than its parent, with parent names and ids (oracle 22.05)", async () => {
    const f = fake();
    await sacctmgrMain(["-i", "add", "account", "srpa"], f.port);
    await sacctmgrMain(["-i", "add", "account", "lab", "Parent=srpa"], f.port);
    await sacctmgrMain(["-i", "add", "user", "root", "Account=lab"], f.port);
    const ids = Object.fromEntries((await sacctmgrMain(["-nP", "show", "assoc", "format=account,user,id"], f.port)).stdout.trim().split("\n").map((l) => {
      const [account, user, id] = l.split("|");
      return [`${account}/${user}`, id];
    }));
    const tree = await sacctmgrMain(["show", "assoc", "tree", "user=root", "format=account,user,parentname,parentid"], f.port);
    expect(tree.stdout).toBe([
      "Account                    User ParentName ParentID ",
      "-------------------- ---------- ---------- -------- ",
      ` root                      root            ${String(ids["root/"]).padStart(8)} `,
      `   lab                     root            ${String(ids["lab/"]).padStart(8)} `,
      "",
    ].join("\n"));
    expect((await sacctmgrMain(["-nP", "show", "assoc", "format=account,parentname,parentid", "user="], f.port)).stdout.split("\n")).toContain(`lab|srpa|${ids["srpa/"]}`);
  });

  it("TRESRunMins lists gres/gpu on a cluster with GPUs, as its jobs' TRES count them (oracle 22.05), and not on one without", () => {
    expect(trackedTres(cluster().state)).toEqual(["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages", "gres/gpu"]);
    const cpuOnly = cluster("ClusterName=c\nNodeName=n1 CPUs=2 RealMemory=1000 Port=17001\nPartitionName=p Nodes=n1 Default=YES\n");
    expect(trackedTres(cpuOnly.state)).not.toContain("gres/gpu");
    const gresTypes = cluster("ClusterName=c\nGresTypes=gpu\nNodeName=n1 CPUs=2 RealMemory=1000 Port=17001\nPartitionName=p Nodes=n1 Default=YES\n");
    expect(trackedTres(gresTypes.state).at(-1)).toBe("gres/gpu");
  });

  it("cuts a header longer than its column without a +, as values are not (oracle 22.05: GrpTRESRunMins in 13)", async () => {
    const f = fake();
    const head = (await sacctmgrMain(["show", "qos", "normal", "format=name,grptresrunmins,grpjobs%3"], f.port)).stdout.split("\n")[0];
    expect(head).toBe("      Name GrpTRESRunMin Grp ");
    expect((await sacctmgrMain(["-P", "show", "qos", "normal", "format=name,grptresrunmins"], f.port)).stdout.split("\n")[0]).toBe("Name|GrpTRESRunMins");
  });

  it("lists the TRES table: Slurm's eight with their ids, then the tracked extras from 1001 (oracle 22.05)", async () => {
    const f = fake();
    expect((await sacctmgrMain(["show", "tres", "-P"], f.port)).stdout).toBe(
      "Type|Name|ID\ncpu||1\nmem||2\nenergy||3\nnode||4\nbilling||5\nfs|disk|6\nvmem||7\npages||8\ngres|gpu|1001\n",
    );
    const table = (await sacctmgrMain(["show", "tres"], f.port)).stdout.split("\n");
    expect(table.slice(0, 3)).toEqual(["    Type            Name     ID ", "-------- --------------- ------ ", "     cpu                      1 "]);
    expect((await sacctmgrMain(["-n", "-P", "show", "tres", "where", "type=gres"], f.port)).stdout).toBe("gres|gpu|1001\n");
  });

  it("lists an account with its associations (withassoc, -s), the old per-TRES columns among them (oracle 22.05)", async () => {
    const f = fake();
    const rows = (await sacctmgrMain(["-n", "-P", "show", "account", "withassoc", "root"], f.port)).stdout;
    expect(rows).toBe("root|default root account|root|test|||1|||||||||||||||normal|\nroot|default root account|root|test||root|1|||||||||||||||normal|\n");
    expect((await sacctmgrMain(["-P", "-s", "show", "account", "root"], f.port)).stdout.split("\n")[0]).toBe(
      "Account|Descr|Org|Cluster|ParentName|User|Share|Priority|GrpJobs|GrpNodes|GrpCPUs|GrpMem|GrpSubmit|GrpWall|GrpCPUMins|MaxJobs|MaxNodes|MaxCPUs|MaxSubmit|MaxWall|MaxCPUMins|QOS|Def QOS",
    );
  });

  it("reports errors in sacctmgr's words with exit 1", async () => {
    const f = fake();
    const r = await sacctmgrMain(["-i", "modify", "user", "where", "name=nobody", "set", "maxjobs=1"], f.port);
    expect(r).toEqual({ stdout: " Nothing modified\n", stderr: "", exitCode: 1 });
    expect((await sacctmgrMain(["show", "widgets"], f.port)).exitCode).toBe(1);
    expect((await sacctmgrMain(["show", "account", "format=nosuch"], f.port)).stderr).toBe("Unknown field 'nosuch'\n");
    // oracle 22.05's words for a command or entity it does not have; entities Slurm has and Spur does not keep are named
    expect((await sacctmgrMain(["bogus"], f.port)).stderr).toBe("invalid keyword: bogus\n");
    expect((await sacctmgrMain(["show", "bogus"], f.port)).stderr).toMatch(/^No valid entity in list command\nInput line must include "Account", "Association", /);
    expect((await sacctmgrMain(["delete", "bogus", "x"], f.port)).stderr).toMatch(/^No valid entity in delete command\n/);
    expect((await sacctmgrMain(["show", "wckey"], f.port)).stderr).toBe(" Unknown entity 'wckey'\n Use keyword 'where' to modify condition\n");
    const alice = fake("", { uid: 1000, gid: 1000, user: "alice", group: "alice" });
    expect((await sacctmgrMain(["-i", "add", "account", "x"], alice.port)).stderr).toContain("privilege");
  });
});

describe("sshare", () => {
  it("shows the fair tree: a user with usage ranks below an idle one", async () => {
    const f = fake();
    await sacctmgrMain(["-i", "add", "account", "a", "b"], f.port);
    await sacctmgrMain(["-i", "add", "user", "alice", "Account=a"], f.port);
    await sacctmgrMain(["-i", "add", "user", "bob", "Account=b"], f.port);
    f.c.run(submit(spec({ account: "a", timeLimitMin: 10 }), 10, { uid: 1000, gid: 1000, user: "alice", group: "alice" }));
    const decisions = [{ jobId: 1, arrayTaskId: 0, alloc: [{ node: "n1", cpus: 1, memMib: 100, gpuIndices: [] }] }];
    f.c.run({ v: 1, type: "startJobs", at: 20, decisions } as never);
    f.setNow(120);
    // Root's children by LevelFS: user root and b (no usage: infinite, tied; users first) before a: user root and
    // bob share rank 3/3 (a tie keeps the rank, and b passes it to its first child, as Slurm's fair tree), alice 1/3.
    const r = await sshareMain(["-a", "-P", "-o", "account,user,rawshares,rawusage,fairshare"], f.port);
    expect(r.stdout).toBe(
      "Account|User|RawShares|RawUsage|FairShare\nroot|||100|\n root|root|1|0|1.000000\n a||1|100|\n  a|alice|1|100|0.333333\n b||1|0|\n  b|bob|1|0|1.000000\n",
    );
    const mine = await sshareMain(["-n"], f.port);
    expect(mine.stdout.split("\n").filter((l) => l.includes("alice"))).toEqual([]);
    const long = await sshareMain(["-l", "-u", "alice"], f.port);
    expect(long.stdout.split("\n")[0]).toContain("LevelFS");
    expect(long.stdout).toContain("alice");
    const only = await sshareMain(["-U", "-a", "-n", "-P", "-o", "account,user"], f.port);
    // the account rows left out, users are not indented (oracle 22.05: `sshare -U -a`)
    expect(only.stdout).toBe("root|root\na|alice\nb|bob\n");
  });
});

describe("options anywhere (glibc getopt permutes; the oracle answers `sacctmgr show user -n`, `sacctmgr list user -P format=user`)", () => {
  it("sacctmgr and sshare give the same answer whatever the options' place", async () => {
    const f = fake();
    for (const [a, b] of [
      [["-n", "show", "user"], ["show", "user", "-n"]],
      [["-P", "list", "user", "format=user"], ["list", "user", "-P", "format=user"]],
      [["-P", "list", "user", "format=user"], ["list", "user", "format=user", "-P"]],
    ] as const) {
      const first = await sacctmgrMain([...a], f.port);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(await sacctmgrMain([...b], f.port)).toEqual(first);
    }
    expect((await sacctmgrMain(["list", "user", "-P", "format=user"], f.port)).stdout).toBe("User\nroot\n");
    expect(await sshareMain(["-l", "-a"], f.port)).toEqual(await sshareMain(["-a", "-l"], f.port));
  });

  it("sshare -h is --noheader in 22.05, not help; -Aroot and --format VALUE are read (differential tester, query:sshare)", async () => {
    const f = fake();
    const plain = await sshareMain(["-n", "-A", "root", "-o", "Account,User"], f.port);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout.startsWith("Usage")).toBe(false);
    for (const argv of [["-h", "-Aroot", "-o", "Account,User"], ["--format", "Account,User", "--noheader", "--accounts", "root"]]) {
      expect(await sshareMain(argv, f.port)).toEqual(plain);
    }
  });
});
