/**
 * End-to-end: `spur up --tls` makes a CA and this host's certificate and turns TLS on
 * for every listener (spurctld, each spurd, spurrestd). Jobs run (batch through the
 * controller→agent link, srun straight to the agents), squeue works for a non-root user
 * (loopback identity still holds under TLS), and plaintext or untrusting clients are
 * refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, ensureUser, isRoot, jobState, type Cluster } from "./cluster.ts";

const USER = "spurtlsuser";
let c: Cluster;
let ctlPort = "";

beforeAll(() => {
  c = startCluster(["--tls", "--nodes", "2"]);
  ctlPort = /^ControlPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
}, 120_000);

afterAll(() => c?.down());

const ping = (url: string, init: RequestInit & { tls?: { ca: string } } = {}) =>
  fetch(`${url}/spur.v1.Controller/Ping`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(5000), ...init });

describe("TLS on every listener (spur up --tls)", () => {
  it("writes the CA and certificate settings into spur.conf", () => {
    const conf = readFileSync(c.conf, "utf8");
    expect(conf).toMatch(/^SpurTlsCaFile=\S+\/tls\/ca\.crt$/m);
    expect(conf).toMatch(/^SpurTlsCertFile=\S+\/tls\/%h\.crt$/m);
    expect(conf).toMatch(/^RestTlsCert=/m);
  });

  it("runs a batch job and an srun step, and squeue answers", async () => {
    const sub = c.run(["sbatch", "--parsable", "-N2", "--wrap", "hostname"]);
    expect(sub.code, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    await eventually(`job ${id} completed`, () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
    const srun = c.run(["srun", "-N2", "echo", "step-ok"]);
    expect(srun.code, srun.stderr).toBe(0);
    expect(srun.stdout.trim().split("\n")).toEqual(["step-ok", "step-ok"]);
    const sq = c.run(["squeue", "--noheader"]);
    expect(sq.code, sq.stderr).toBe(0);
  }, 120_000);

  it.skipIf(!isRoot() || !ensureUser(USER))("identifies a non-root user over TLS (submits and sees their own job)", async () => {
    const sub = c.run(["sbatch", "--parsable", "--wrap", "sleep 30"], { user: USER });
    expect(sub.code, sub.stderr).toBe(0);
    const sq = c.run(["squeue", "--noheader", "-o", "%i %u"], { user: USER });
    expect(sq.stdout).toContain(`${sub.stdout.trim()} ${USER}`);
    expect(c.run(["scancel", sub.stdout.trim()], { user: USER }).code).toBe(0);
  }, 60_000);

  it("refuses plaintext and untrusting clients", async () => {
    const ca = readFileSync(join(c.dir, "cluster", "tls", "ca.crt"), "utf8");
    expect((await ping(`https://127.0.0.1:${ctlPort}`, { tls: { ca } })).ok).toBe(true);
    await expect(ping(`http://127.0.0.1:${ctlPort}`)).rejects.toThrow();
    await expect(ping(`https://127.0.0.1:${ctlPort}`)).rejects.toThrow();
    const env = { ...c.env, SPUR_CONTROLLER_URL: `http://127.0.0.1:${ctlPort}` };
    const plain = Bun.spawnSync([join(c.dir, "bin", "squeue")], { env, stdout: "pipe", stderr: "pipe" });
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr.toString()).toContain("Unable to contact slurm controller");
  }, 60_000);

  it("serves REST over https with the same CA", async () => {
    const rest = /^RestPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1];
    const ca = readFileSync(join(c.dir, "cluster", "tls", "ca.crt"), "utf8");
    const tok = /^SLURM_JWT=(\S+)/.exec(c.run(["scontrol", "token"]).stdout)?.[1] ?? "";
    const res = await fetch(`https://127.0.0.1:${rest}/slurm/v0.0.42/ping`, { headers: { "X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": tok }, tls: { ca } } as RequestInit);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { pings: unknown[] }).pings.length).toBe(1);
  }, 30_000);
});
