/**
 * The operators' REST paths over the fake controller: reservations (create or
 * modify, list, one, delete), node removal, and /slurmdb/ writes (accounts, users,
 * QOS, associations) going out as the sacctmgr RPC with add-then-modify, each
 * refused for a plain user as the controller refuses it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createFixture, NOW_SEC, type Fixture } from "./fixture.ts";

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});

const errorsOf = (json: Record<string, unknown>) => json.errors as { description: string; error_number: number; error: string }[];

describe("reservations", () => {
  const resv = { name: "maint", start_time: { set: true, infinite: false, number: NOW_SEC + 3600 }, duration: { set: true, infinite: false, number: 120 }, node_list: ["n1", "n2"], users: ["alice"], flags: ["MAINT"] };

  it("an operator creates, lists, updates and deletes one", async () => {
    const made = await fx.request("POST", "/slurm/v0.0.45/reservation", { user: "op", body: resv });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    expect(fx.admin.resv.get("maint")).toEqual({ starttime: String(NOW_SEC + 3600), duration: "120", nodes: "n1,n2", users: "alice", flags: "MAINT" });
    const one = await fx.request("GET", "/slurm/v0.0.45/reservation/maint", { user: "alice" });
    expect(one.status).toBe(200);
    expect(one.json.reservations).toEqual([expect.objectContaining({ name: "maint", users: "alice", flags: ["MAINT"], start_time: { set: true, infinite: false, number: NOW_SEC + 3600 } })]);
    const upd = await fx.request("POST", "/slurm/v0.0.45/reservations/", { user: "op", body: { reservations: [{ name: "maint", users: ["alice", "bob"] }] } });
    expect(upd.status).toBe(200);
    expect(fx.admin.resv.get("maint")?.users).toBe("alice,bob");
    expect((await fx.request("DELETE", "/slurm/v0.0.45/reservation/maint", { user: "op" })).status).toBe(200);
    expect((await fx.request("GET", "/slurm/v0.0.45/reservations/", { user: "alice" })).json.reservations).toEqual([]);
    const gone = await fx.request("GET", "/slurm/v0.0.45/reservation/maint", { user: "alice" });
    expect(gone.status).toBe(404);
  });

  it("refuses a plain user, a bad body and versions before v0.0.43", async () => {
    const denied = await fx.request("POST", "/slurm/v0.0.45/reservation", { user: "alice", body: resv });
    expect(denied.status).toBe(403);
    expect(errorsOf(denied.json)[0]?.error).toBe("Access/permission denied");
    expect((await fx.request("POST", "/slurm/v0.0.45/reservation", { user: "op", body: { ...resv, bogus: 1 } })).status).toBe(400);
    expect((await fx.request("POST", "/slurm/v0.0.45/reservation", { user: "op", body: { name: "x", users: ["a"] } })).status).toBe(400);
    expect((await fx.request("POST", "/slurm/v0.0.42/reservation", { user: "op", body: resv })).status).toBe(404);
    expect(fx.admin.resv.size).toBe(0);
  });
});

describe("node removal", () => {
  it("names the node that does not exist", async () => {
    const r = await fx.request("DELETE", "/slurm/v0.0.45/node/n9", { user: "op" });
    expect(r.status).toBe(404);
    expect(errorsOf(r.json)[0]?.description).toContain("n9");
  });
});

describe("slurmdb writes", () => {
  it("adds an account, then updates it, and GET shows the record", async () => {
    const add = await fx.request("POST", "/slurmdb/v0.0.45/accounts/", { user: "op", body: { accounts: [{ name: "physics", description: "Physics", organization: "science" }] } });
    expect(add.status, JSON.stringify(add.json)).toBe(200);
    const again = await fx.request("POST", "/slurmdb/v0.0.45/accounts/", { user: "op", body: { accounts: [{ name: "physics", description: "Physics dept" }] } });
    expect(again.status).toBe(200);
    expect(fx.admin.acct.map((a) => a.action)).toEqual(["add", "add", "modify"]);
    expect(fx.admin.acct[2]).toMatchObject({ entity: "account", names: ["physics"], set: { description: "Physics dept" } });
    const list = await fx.request("GET", "/slurmdb/v0.0.45/accounts/", { user: "alice" });
    expect(list.json.accounts).toContainEqual({ name: "physics", description: "Physics dept", organization: "science", flags: [] });
    const del = await fx.request("DELETE", "/slurmdb/v0.0.45/account/physics", { user: "op" });
    expect(del.json.removed_accounts).toEqual(["physics"]);
    expect((await fx.request("DELETE", "/slurmdb/v0.0.45/account/physics", { user: "op" })).status).toBe(404);
  });

  it("adds users with their account and admin level, QOS with a priority, associations with shares", async () => {
    expect((await fx.request("POST", "/slurmdb/v0.0.45/users/", { user: "op", body: { users: [{ name: "carol", default: { account: "root" }, administrator_level: ["Operator"] }] } })).status).toBe(200);
    expect(fx.admin.acct.at(-1)).toMatchObject({ action: "add", entity: "user", names: ["carol"], set: { account: "root", defaultaccount: "root", adminlevel: "Operator" } });
    const users = await fx.request("GET", "/slurmdb/v0.0.45/users/", { user: "alice" });
    expect(users.json.users).toContainEqual({ name: "carol", default: { account: "root", wckey: "" }, administrator_level: ["Operator"], flags: [] });
    const noAccount = await fx.request("POST", "/slurmdb/v0.0.45/users/", { user: "op", body: { users: [{ name: "dave" }] } });
    expect(noAccount.status).toBe(400);
    expect(errorsOf(noAccount.json)[0]?.description).toMatch(/^user dave: Need name of account/);
    expect((await fx.request("POST", "/slurmdb/v0.0.45/qos/", { user: "op", body: { qos: [{ name: "gold", priority: { set: true, infinite: false, number: 100 } }] } })).status).toBe(200);
    expect(fx.admin.acct.at(-1)).toMatchObject({ entity: "qos", names: ["gold"], set: { priority: "100" } });
    expect((await fx.request("GET", "/slurmdb/v0.0.45/qos/gold", { user: "alice" })).status).toBe(200);
    expect((await fx.request("POST", "/slurmdb/v0.0.45/associations/", { user: "op", body: { associations: [{ account: "root", user: "erin", shares_raw: 5 }] } })).status).toBe(200);
    expect(fx.admin.acct.at(-1)).toMatchObject({ action: "add", entity: "user", names: ["erin"], set: { account: "root", fairshare: "5" } });
    expect(JSON.stringify((await fx.request("DELETE", "/slurmdb/v0.0.45/qos/gold", { user: "op" })).json.removed_qos)).toBe('["gold"]');
  });

  it("refuses a plain user and a delete of associations without a filter", async () => {
    expect((await fx.request("POST", "/slurmdb/v0.0.45/accounts/", { user: "alice", body: { accounts: [{ name: "x" }] } })).status).toBe(403);
    expect((await fx.request("DELETE", "/slurmdb/v0.0.45/user/root", { user: "alice" })).status).toBe(403);
    expect((await fx.request("DELETE", "/slurmdb/v0.0.45/associations/", { user: "op" })).status).toBe(400);
    expect(fx.admin.accounts.has("x")).toBe(false);
  });
});

describe("partitions and reconfigure", () => {
  it("DELETE partition/{name} (v0.0.45) deletes for an operator; 'Invalid user id' for others; unknown names refused", async () => {
    expect((await fx.request("DELETE", "/slurm/v0.0.45/partition/gpu", { user: "alice" })).status).toBe(403);
    expect((await fx.request("DELETE", "/slurm/v0.0.45/partition/gpu", { user: "op" })).status).toBe(200);
    expect([...fx.admin.partitions]).toEqual(["debug"]);
    const unknown = await fx.request("DELETE", "/slurm/v0.0.45/partition/nope", { user: "op" });
    expect(errorsOf(unknown.json)[0]?.error).toBe("Invalid partition name specified");
    expect((await fx.request("DELETE", "/slurm/v0.0.44/partition/debug", { user: "op" })).status).toBe(404);
  });

  it("GET reconfigure/ (v0.0.43 on) asks the controller; what it kept is an error; a plain user is refused", async () => {
    expect((await fx.request("GET", "/slurm/v0.0.43/reconfigure/", { user: "op" })).status).toBe(200);
    expect(fx.admin.reconfigured).toBe(1);
    fx.admin.reconfigureRefuses = ["SchedulerType change requires restart of the slurmctld daemon to take effect"];
    const kept = await fx.request("GET", "/slurm/v0.0.45/reconfigure/", { user: "root" });
    expect(errorsOf(kept.json)[0]?.error).toBe("SchedulerType change requires restart of the slurmctld daemon to take effect");
    expect((await fx.request("GET", "/slurm/v0.0.45/reconfigure/", { user: "alice" })).status).toBe(403);
    expect((await fx.request("GET", "/slurm/v0.0.42/reconfigure/", { user: "op" })).status).toBe(404);
  });
});
