/**
 * The "acct" command through apply(): the records a fresh cluster has, add /
 * modify / delete of accounts, users and QOS with sacctmgr's rules, access
 * control, atomicity on errors, and replay of the log to the same records.
 */
import { describe, expect, it } from "vitest";
import { ALICE, ROOT, cluster } from "../sched/builders.ts";
import { acct } from "./helpers.ts";
import { userAssoc } from "../../../src/sched/acct/types.ts";


describe("accounting records", () => {
  it("start as Slurm's database does: cluster root, account root, user root, QOS normal", () => {
    const c = cluster();
    expect([...c.state.acct.accounts.keys()]).toEqual(["root"]);
    expect(c.state.acct.users.get("root")?.defaultAccount).toBe("root");
    expect([...c.state.acct.qos.keys()]).toEqual(["normal"]);
    expect([...c.state.acct.assocs.values()].map((a) => `${a.account}/${a.user}`)).toEqual(["root/", "root/root"]);
  });

  it("adds accounts and users, reports what changed, and rejects duplicates and unknown parents", () => {
    const c = cluster();
    const r = c.run(acct({ action: "add", entity: "account", names: ["physics"], set: { description: "phys", fairshare: "3" } }));
    expect(r.error).toBe("");
    expect(r.text).toContain(" Adding Account(s)\n  physics\n");
    expect(r.text).toContain("  A = physics    C = test      ");
    expect(c.run(acct({ action: "add", entity: "account", names: ["physics"] })).error).toBe(" Nothing new added.");
    expect(c.run(acct({ action: "add", entity: "account", names: ["x"], set: { parent: "nope" } })).error).toBe(
      " Parent account 'nope' doesn't exist on cluster test\n        Contact your admin to add this account.\n No associations created.",
    );
    const u = c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "physics", maxjobs: "2" } }));
    expect(u.error).toBe("");
    expect(c.state.acct.users.get("alice")?.defaultAccount).toBe("physics");
    expect(userAssoc(c.state.acct, "test", "physics", "alice")?.limits.maxJobs).toBe(2);
    expect(c.run(acct({ action: "add", entity: "user", names: ["bob"], set: { account: "nope" } })).error).toContain("nope");
  });

  it("says what it added as 22.05 does: cut association columns, the users' settings given, the limits given (oracle)", () => {
    const c = cluster();
    c.run(acct({ action: "add", entity: "account", names: ["averylongaccount"] }));
    const plain = c.run(acct({ action: "add", entity: "user", names: ["averylonguser"], set: { account: "averylongaccount" } }));
    expect(plain.text).toBe(" Adding User(s)\n  averylonguser\n Associations =\n  U = averylong A = averylonga C = test      \n Non Default Settings\n");
    const rich = c.run(acct({
      action: "add", entity: "user", names: ["zzu"],
      set: { account: "root", adminlevel: "operator", defaultaccount: "root", shares: "2", grpjobs: "2", maxwall: "10", qos: "normal", partition: "debug" },
    }));
    expect(rich.text).toBe([
      " Adding User(s)", "  zzu", " Settings =", "  Default Account = root", "  Admin Level     = Operator", " Associations =",
      "  U = zzu       A = root       C = test       P = debug     ", " Non Default Settings",
      "  Fairshare     = 2", "  GrpJobs       = 2", "  MaxWall       = 00:10:00", "  QOS           = normal", "",
    ].join("\n"));
    // an existing user given another account: the association alone
    expect(c.run(acct({ action: "add", entity: "user", names: ["zzu"], set: { account: "averylongaccount" } })).text).toBe(
      " Associations =\n  U = zzu       A = averylonga C = test      \n Non Default Settings\n",
    );
    expect(c.run(acct({ action: "add", entity: "qos", names: ["fast"] })).text).toContain("  Description    = fast\n");
    expect(c.run(acct({ action: "add", entity: "user", names: ["x"], set: { account: "root", bogus: "1" } })).error).toBe(" Unknown option: bogus=1");
    expect(c.run(acct({ action: "add", entity: "account", names: ["x"], set: { bogus: "1" } })).error).toBe(" Unknown option: bogus=1\n Use keyword 'where' to modify condition");
    expect(c.run(acct({ action: "modify", entity: "qos", names: ["normal"], set: { maxwall: "bogus" } })).error).toBe(" Bad MaxWall time format: maxwall=bogus");
  });

  it("modifies by where/set and deletes an account's subtree; root stays", () => {
    const c = cluster();
    c.run(acct({ action: "add", entity: "account", names: ["a"] }));
    c.run(acct({ action: "add", entity: "account", names: ["b"], set: { parent: "a" } }));
    c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "b" } }));
    const m = c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { grptres: "cpu=4,gres/gpu=2", maxwall: "1:00:00" } }));
    expect(m.error).toBe("");
    expect(userAssoc(c.state.acct, "test", "b", "alice")?.limits).toEqual({ grpTres: { cpu: 4, "gres/gpu": 2 }, maxWallMin: 60 });
    expect(c.run(acct({ action: "modify", entity: "user", where: { name: "nobody" }, set: { maxjobs: "1" } })).error).toBe(" Nothing modified");
    expect(c.run(acct({ action: "delete", entity: "account", names: ["root"] })).error).toContain("root");
    const d = c.run(acct({ action: "delete", entity: "account", names: ["a"] }));
    expect(d.error).toBe("");
    expect([...c.state.acct.accounts.keys()]).toEqual(["root"]);
    expect(c.state.acct.users.has("alice")).toBe(false);
  });

  it("adds and modifies QOS; a failing request changes nothing", () => {
    const c = cluster();
    expect(c.run(acct({ action: "add", entity: "qos", names: ["high"], set: { priority: "100", maxjobsperuser: "1" } })).error).toBe("");
    expect(c.state.acct.qos.get("high")?.limits.maxJobsPerUser).toBe(1);
    const before = structuredClone(c.state.acct);
    const bad = c.run(acct({ action: "modify", entity: "qos", names: ["high"], set: { priority: "5", maxtres: "bogus=1" } }));
    expect(bad.error).toContain("Invalid TRES");
    expect(c.state.acct).toEqual(before);
  });

  it("lets only administrators change accounting", () => {
    const c = cluster();
    const r = c.run(acct({ action: "add", entity: "account", names: ["x"] }, ALICE));
    expect(r.errorCode).toBe("AccessDenied");
    expect(c.state.acct.accounts.has("x")).toBe(false);
  });

  it("replays the log to the same records", () => {
    const c = cluster();
    c.run(acct({ action: "add", entity: "account", names: ["a", "b"] }));
    c.run(acct({ action: "add", entity: "user", names: ["alice", "bob"], set: { account: "a,b" } }));
    c.run(acct({ action: "delete", entity: "user", names: ["bob"], where: { account: "a" } }));
    const again = cluster(undefined, false);
    for (const cmd of c.log) again.run(cmd);
    expect(again.state.acct).toEqual(c.state.acct);
  });
});
