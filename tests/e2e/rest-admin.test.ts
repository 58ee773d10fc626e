/**
 * End-to-end: the operators' REST paths against the real controller. A reservation
 * made over REST is what `scontrol show reservation` prints and goes away on DELETE;
 * accounts, users, QOS and associations written over /slurmdb/ are what `sacctmgr show`
 * prints (one replicated command each, as sacctmgr sends it); a plain user is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { startCluster, ensureUser, isRoot, type Cluster } from "./cluster.ts";

const USER = "spurresta";
const ready = isRoot() && ensureUser(USER);
let c: Cluster;
let url = "";
const tokens: Record<string, string> = {};

beforeAll(() => {
  c = startCluster(["--nodes", "2"]);
  url = `http://127.0.0.1:${/^RestPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1]}`;
  tokens.root = /^SLURM_JWT=(\S+)/.exec(c.run(["scontrol", "token", "lifespan=600"]).stdout)?.[1] ?? "";
  if (ready) tokens[USER] = /^SLURM_JWT=(\S+)/.exec(c.run(["scontrol", "token", "lifespan=600"], { user: USER }).stdout)?.[1] ?? "";
}, 120_000);
afterAll(() => c?.down());

async function call(method: string, path: string, user = "root", body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method, headers: { "X-SLURM-USER-NAME": user, "X-SLURM-USER-TOKEN": tokens[user] ?? "", "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("REST admin paths on a real controller", () => {
  it("creates, shows, updates and deletes a reservation", async () => {
    const start = Math.floor(Date.now() / 1000) + 3600;
    const made = await call("POST", "/slurm/v0.0.45/reservation", "root", {
      name: "restmaint", start_time: { set: true, infinite: false, number: start }, duration: { set: true, infinite: false, number: 60 }, node_list: ["n1"], users: ["root"],
    });
    expect(made.status, JSON.stringify(made.json.errors)).toBe(200);
    expect(c.run(["scontrol", "show", "reservation", "restmaint"]).stdout).toMatch(/ReservationName=restmaint .*Nodes=n1/s);
    const one = await call("GET", "/slurm/v0.0.45/reservation/restmaint");
    expect(one.json.reservations).toEqual([expect.objectContaining({ name: "restmaint", node_list: "n1", users: "root" })]);
    expect((await call("POST", "/slurm/v0.0.45/reservations/", "root", { reservations: [{ name: "restmaint", node_list: ["n2"] }] })).status).toBe(200);
    expect(c.run(["scontrol", "show", "reservation", "restmaint"]).stdout).toMatch(/Nodes=n2/);
    expect((await call("DELETE", "/slurm/v0.0.45/reservation/restmaint")).status).toBe(200);
    expect((await call("GET", "/slurm/v0.0.45/reservation/restmaint")).status).toBe(404);
  }, 60_000);

  it("sets a node's features, which the scheduler then matches", async () => {
    const r = await call("POST", "/slurm/v0.0.45/node/n2", "root", { features: ["ib", "fast"] });
    expect(r.status, JSON.stringify(r.json.errors)).toBe(200);
    expect(c.run(["scontrol", "show", "node", "n2"]).stdout).toMatch(/AvailableFeatures=ib,fast/);
    const job = c.run(["sbatch", "--parsable", "--constraint=ib", "--wrap", "true"]);
    expect(job.code, job.stderr).toBe(0);
    expect((await call("POST", "/slurm/v0.0.45/node/n2", "root", { comment: "x" })).status).toBe(400);
  }, 60_000);

  it("writes accounting records that sacctmgr shows", async () => {
    const acct = await call("POST", "/slurmdb/v0.0.45/accounts/", "root", { accounts: [{ name: "restphys", description: "physics", organization: "science" }] });
    expect(acct.status, JSON.stringify(acct.json.errors)).toBe(200);
    const user = await call("POST", "/slurmdb/v0.0.45/users/", "root", { users: [{ name: USER, default: { account: "restphys" } }] });
    expect(user.status, JSON.stringify(user.json.errors)).toBe(200);
    const qos = await call("POST", "/slurmdb/v0.0.45/qos/", "root", { qos: [{ name: "restgold", description: "gold", priority: { set: true, infinite: false, number: 50 } }] });
    expect(qos.status, JSON.stringify(qos.json.errors)).toBe(200);
    const assoc = await call("POST", "/slurmdb/v0.0.45/associations/", "root", { associations: [{ account: "restphys", user: USER, shares_raw: 7 }] });
    expect(assoc.status, JSON.stringify(assoc.json.errors)).toBe(200);
    const show = c.run(["sacctmgr", "-nP", "show", "assoc", "where", `user=${USER}`, "format=account,user,fairshare"]);
    expect(show.stdout.trim()).toBe(`restphys|${USER}|7`);
    expect(c.run(["sacctmgr", "-nP", "show", "qos", "restgold", "format=name,priority"]).stdout.trim()).toBe("restgold|50");
    const accounts = await call("GET", "/slurmdb/v0.0.45/accounts/");
    expect(accounts.json.accounts).toContainEqual({ name: "restphys", description: "physics", organization: "science", flags: [] });
    expect((await call("DELETE", "/slurmdb/v0.0.45/qos/restgold")).json.removed_qos).toEqual(["restgold"]);
    expect(c.run(["sacctmgr", "-nP", "show", "qos", "restgold"]).stdout.trim()).toBe("");
  }, 60_000);

  it.runIf(ready)("refuses a plain user", async () => {
    const r = await call("POST", "/slurmdb/v0.0.45/accounts/", USER, { accounts: [{ name: "sneaky" }] });
    expect(r.status).toBe(403);
    expect((await call("DELETE", "/slurm/v0.0.45/reservation/none", USER)).status).toBeGreaterThanOrEqual(400);
    expect(c.run(["sacctmgr", "-nP", "show", "account", "sneaky"]).stdout.trim()).toBe("");
  }, 60_000);
});
