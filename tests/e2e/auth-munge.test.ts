/**
 * End-to-end: AuthType=auth/munge against real munged daemons (Debian's munge). Three
 * munged run with their own sockets: A beside the controller, B on the "login host" with
 * the same key, C with another key. Commands on B are who munged says they are (a second
 * Unix user's job is theirs; that user's credential sent by a root process acts as the
 * user, not as root); a replayed, expired or foreign-key credential is refused with
 * Slurm's "Protocol authentication error" and the controller logs munged's reason.
 * The system's own munged (/run/munge, used by the Slurm oracle) is never touched.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { mungeKey, startMunged } from "../../src/ops/munged.ts";
import { join } from "node:path";
import { BIN, type Cluster, ensureUser, eventually, isRoot, startCluster } from "./cluster.ts";

const HAVE_MUNGED = spawnSync("sh", ["-c", "command -v munged && command -v munge"]).status === 0;
const USER = "spurmunge1";

let c: Cluster;
let dir: string | undefined;
const stops: (() => void)[] = [];
const sock = (name: string) => join(dir ?? "", `${name}.sock`);

function startOne(dir: string, name: string, keyFile: string): void {
  const m = startMunged({ dir, name, keyFile });
  if (!m.ok) throw new Error(m.error.message);
  stops.push(m.value.stop);
}

/** A spur.conf for a host whose munged listens at `socket` (the same file, AuthInfo aside). */
function clientConf(name: string, socket: string): string {
  const path = join(c.dir, "cluster", `${name}.conf`);
  writeFileSync(path, readFileSync(c.conf, "utf8").replace(/^AuthInfo=.*$/m, `AuthInfo=socket=${socket}`), { mode: 0o644 });
  return path;
}

/** Runs a command on the host whose spur.conf is `conf` (as `user` through setpriv, or root). */
function runOn(conf: string, args: string[], user?: string): { stdout: string; stderr: string; code: number } {
  const env = { ...c.env, SPUR_CONF: conf };
  const argv = user === undefined ? [BIN, ...args] : ["setpriv", `--reuid=${user}`, `--regid=${user}`, "--init-groups", "--", BIN, ...args];
  const r = spawnSync(argv[0] ?? "", argv.slice(1), { env, cwd: c.work, encoding: "utf8", timeout: 60_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

/** A credential minted by `munge` (as `user`, through munged B), for requests sent by hand. */
function mint(ttlSec?: number, user?: string): string {
  const args = ["-n", `--socket=${sock("b")}`, ...(ttlSec === undefined ? [] : [`--ttl=${ttlSec}`])];
  const r = user === undefined ? spawnSync("munge", args, { encoding: "utf8" }) : spawnSync("setpriv", [
    `--reuid=${USER}`, `--regid=${USER}`, "--init-groups", "munge", ...args,
  ], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`munge: ${r.stderr}`);
  return r.stdout.trim();
}

async function call(method: string, body: unknown, cred?: string): Promise<{ status: number; errno: string; json: { code?: string; message?: string; results?: { error: string }[] } }> {
  const text = readFileSync(c.conf, "utf8");
  const host = /^ControlAddr=(\S+)/m.exec(text)?.[1] ?? "127.0.0.1";
  const port = /^ControlPort=(\d+)/m.exec(text)?.[1] ?? "6817";
  const res = await fetch(`http://${host}:${port}/spur.v1.Controller/${method}`, {
    method: "POST", headers: { "content-type": "application/json", ...(cred === undefined ? {} : { "x-spur-cred": `munge:${cred}` }) }, body: JSON.stringify(body),
  });
  return { status: res.status, errno: res.headers.get("x-slurm-errno") ?? "", json: await res.json() as never };
}

const ctldLog = () => readFileSync(join(c.dir, "cluster", "log", "spurctld.log"), "utf8");

describe.skipIf(!HAVE_MUNGED || !isRoot())("AuthType=auth/munge with real munged", () => {
  beforeAll(() => {
    c = startCluster(["--nodes", "1", "--cpus-per-node", "2"]);
    // munged refuses a directory others may write (the cluster's is 777): a private one, readable
    // by all so that other users reach the sockets.
    dir = mkdtempSync(join(tmpdir(), "spur-munge-"));
    const key = join(dir, "cluster.key");
    const other = join(dir, "other.key");
    mungeKey(key);
    mungeKey(other);
    startOne(dir, "a", key);
    startOne(dir, "b", key);
    startOne(dir, "c", other);
    ensureUser(USER);
    c.reconfigure(`AuthType=auth/munge\nAuthInfo=socket=${sock("a")}`);
  }, 120_000);
  afterAll(() => {
    c?.down();
    for (const stop of stops) stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("shows auth/munge in scontrol show config", () => {
    const r = runOn(clientConf("login", sock("b")), ["scontrol", "show", "config"]);
    expect(r.stdout).toMatch(/^AuthType\s+= auth\/munge$/m);
  });

  it("takes who munged vouches for: a second user's job is theirs", async () => {
    const conf = clientConf("login", sock("b"));
    const sub = runOn(conf, ["sbatch", "--parsable", "--hold", "--wrap", "true"], USER);
    expect(sub.stderr).toBe("");
    const id = sub.stdout.trim();
    const q = runOn(conf, ["squeue", "-h", "-j", id, "-o", "%u"]);
    expect(q.stdout.trim()).toBe(USER);
  });

  it("a user's credential acts as that user even when root's process sends it", async () => {
    const conf = clientConf("login", sock("b"));
    const rootJob = runOn(conf, ["sbatch", "--parsable", "--hold", "--wrap", "true"]).stdout.trim();
    const asUser = await call("Cancel", { filter: { jobIds: [rootJob] } }, mint(undefined, USER));
    expect(asUser.status).toBe(200);
    expect(asUser.json.results?.[0]?.error).toMatch(/Access\/permission denied/);
    const asRoot = await call("Cancel", { filter: { jobIds: [rootJob] } }, mint());
    expect(asRoot.json.results?.[0]?.error ?? "").toBe("");
  });

  it("refuses a replayed credential and logs munged's reason", async () => {
    const cred = mint();
    expect((await call("Ping", {}, cred)).status).toBe(200);
    const again = await call("Ping", {}, cred);
    expect(again.status).toBe(401);
    expect(again.json.message).toBe("Protocol authentication error");
    expect(again.errno).toBe("1007"); // SLURM_PROTOCOL_AUTHENTICATION_ERROR
    await eventually("the replay in the log", () => (ctldLog().includes("Munge decode failed: Replayed credential") ? true : undefined));
  });

  it("refuses an expired credential", async () => {
    const cred = mint(1);
    await new Promise((r) => setTimeout(r, 2500)); // munged's ttl is whole seconds
    const r = await call("Ping", {}, cred);
    expect(r.status).toBe(401);
    await eventually("the expiry in the log", () => (ctldLog().includes("Munge decode failed: Expired credential") ? true : undefined));
  });

  it("refuses a host whose munged holds another key, in Slurm's words", async () => {
    const conf = clientConf("foreign", sock("c"));
    const r = runOn(conf, ["sbatch", "--hold", "--wrap", "true"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("Protocol authentication error");
    const q = runOn(conf, ["squeue"]);
    expect(q.code).not.toBe(0);
    expect(q.stderr).toContain("Protocol authentication error");
    await eventually("the foreign key in the log", () => (ctldLog().includes("Munge decode failed: Invalid credential") ? true : undefined));
  });
});
