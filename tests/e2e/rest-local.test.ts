/**
 * End-to-end: spurrestd's Unix-socket mode (rest_auth/local). The caller is the
 * connecting process's owner as the kernel reports it (SO_PEERCRED through bun:ffi):
 * no token needed; a plain user acts as themself even when naming another user;
 * root may name a user. Uses curl --unix-socket as clients.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { startCluster, ensureUser, isRoot, type Cluster } from "./cluster.ts";

const USER = "spurresta";
const ready = isRoot() && ensureUser(USER) && spawnSync("curl", ["--version"]).status === 0;
let c: Cluster;
let sock = "";

beforeAll(async () => {
  if (!ready) return;
  c = startCluster(["--nodes", "1"]);
  sock = join(c.dir, "spurrestd.sock");
  c.startDaemon("spurrestd-local", ["spurrestd", "--conf", c.conf, "--port", "0", "--unix", sock]);
  const deadline = Date.now() + 30_000;
  while (!existsSync(sock) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
}, 120_000);
afterAll(() => c?.down());

function curl(path: string, opts: { user?: string; headers?: string[]; body?: unknown } = {}): { status: number; json: Record<string, unknown> } {
  const args = ["-s", "-w", "\n%{http_code}", "--unix-socket", sock, ...(opts.headers ?? []).flatMap((h) => ["-H", h])];
  if (opts.body !== undefined) args.push("-H", "content-type: application/json", "-d", JSON.stringify(opts.body));
  args.push(`http://localhost${path}`);
  const cmd = opts.user === undefined ? ["curl", ...args] : ["setpriv", `--reuid=${opts.user}`, `--regid=${opts.user}`, "--init-groups", "--", "curl", ...args];
  const r = spawnSync(cmd[0] as string, cmd.slice(1), { encoding: "utf8", timeout: 30_000 });
  const lines = (r.stdout ?? "").trimEnd().split("\n");
  const status = Number(lines.pop());
  return { status, json: JSON.parse(lines.join("\n") || "{}") as Record<string, unknown> };
}

const clientUser = (json: Record<string, unknown>) => (json.meta as { client: { user: string } }).client.user;

describe.runIf(ready)("spurrestd on a Unix socket (rest_auth/local)", () => {
  it("takes the caller from the socket peer, without a token", () => {
    const asRoot = curl("/slurm/v0.0.45/ping/");
    expect(asRoot.status).toBe(200);
    expect(clientUser(asRoot.json)).toBe("root");
    const asUser = curl("/slurm/v0.0.45/ping/", { user: USER });
    expect(asUser.status).toBe(200);
    expect(clientUser(asUser.json)).toBe(USER);
  });

  it("submits as the peer; a plain user cannot name another user, root can", () => {
    const job = { script: "#!/bin/sh\nsleep 30\n", job: { name: "local-mode", current_working_directory: "/tmp", environment: ["PATH=/bin:/usr/bin"] } };
    const sub = curl("/slurm/v0.0.45/job/submit", { user: USER, headers: ["X-SLURM-USER-NAME: root"], body: job });
    expect(sub.status, JSON.stringify(sub.json.errors)).toBe(200);
    const id = String(sub.json.job_id);
    expect(c.run(["squeue", "--noheader", "-j", id, "-o", "%u"]).stdout.trim()).toBe(USER);
    expect(clientUser(curl("/slurm/v0.0.45/ping/", { headers: [`X-SLURM-USER-NAME: ${USER}`] }).json)).toBe(USER);
    // the cluster page's calls take the same peer: the job view shows the owner its script
    const view = curl("/ui/api/view", { user: USER });
    expect(view.status).toBe(200);
    expect(view.json.user).toBe(USER);
    const detail = curl(`/ui/api/job/${id}`, { user: USER });
    expect(detail.json.script).toBe(job.script);
    expect(c.run(["scancel", id]).code).toBe(0);
  });
});
