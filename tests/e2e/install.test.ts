/**
 * End-to-end: the built dist/spur installed through install.sh — from a local
 * HTTP server (the `curl | bash` path) and from a local file (air-gapped) —
 * then a local cluster started from the installed file runs a job.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync, copyFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BIN } from "./cluster.ts";

const INSTALL = resolve(__dirname, "../../install.sh");
const dir = mkdtempSync(join(tmpdir(), "spur-install-"));
const sha = createHash("sha256").update(readFileSync(BIN)).digest("hex");
const arch = process.arch === "arm64" ? "arm64" : "x64";
let server: ReturnType<typeof Bun.serve> | undefined;

async function runAsync(script: string): Promise<{ code: number; stderr: string }> {
  const p = Bun.spawn(["bash", "-c", script], { stdout: "ignore", stderr: "pipe" });
  const stderr = await new Response(p.stderr).text();
  return { code: await p.exited, stderr };
}

afterAll(() => {
  server?.stop(true);
  spawnSync(join(dir, "net", "spur"), ["down", "--state-dir", join(dir, "cluster")]);
  // two copies of the binary (~350 MB) and a cluster's state: left behind, every run filled /tmp
  rmSync(dir, { recursive: true, force: true });
});

describe("install.sh", () => {
  it("installs from a local HTTP server with curl | bash, verifies the checksum and writes the links", async () => {
    const name = `spur-linux-${arch}`;
    copyFileSync(BIN, join(dir, name));
    writeFileSync(join(dir, `${name}.sha256`), `${sha}  ${name}\n`);
    copyFileSync(INSTALL, join(dir, "install.sh"));
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => new Response(Bun.file(join(dir, new URL(req.url).pathname.slice(1)))) });
    const prefix = join(dir, "net");
    const pipe = `curl -fsSL http://127.0.0.1:${server.port}/install.sh | bash -s -- --base-url http://127.0.0.1:${server.port} --prefix ${prefix}`;
    // Asynchronously: the HTTP server lives in this process and must keep answering.
    const first = await runAsync(pipe);
    expect(first.code, first.stderr).toBe(0);
    const again = await runAsync(pipe);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(prefix, "spur"))).toBe(true);
    expect(readlinkSync(join(prefix, "sbatch"))).toMatch(/spur$/);
  });

  it("installs a local file with --from and refuses a wrong checksum", () => {
    const prefix = join(dir, "local");
    const bad = spawnSync("bash", [INSTALL, "--from", BIN, "--sha256", "0".repeat(64), "--prefix", prefix], { encoding: "utf8" });
    expect(bad.status).not.toBe(0);
    expect(existsSync(join(prefix, "spur"))).toBe(false);
    const good = spawnSync("bash", [INSTALL, "--from", BIN, "--sha256", sha, "--prefix", prefix], { encoding: "utf8" });
    expect(good.status, good.stderr).toBe(0);
    expect(createHash("sha256").update(readFileSync(join(prefix, "spur"))).digest("hex")).toBe(sha);
  });

  it("runs a job with the installed file", async () => {
    const bin = join(dir, "net");
    const state = join(dir, "cluster");
    const up = spawnSync(join(bin, "spur"), ["up", "--detach", "--state-dir", state, "--nodes", "1"], { encoding: "utf8" });
    expect(up.status, up.stderr).toBe(0);
    const env = { ...process.env, SPUR_CONF: join(state, "spur.conf"), PATH: `${bin}:${process.env.PATH}` };
    const sub = spawnSync(join(bin, "sbatch"), ["--parsable", "--wrap", "echo installed"], { encoding: "utf8", env, cwd: dir });
    expect(sub.status, sub.stderr).toBe(0);
    const id = sub.stdout.trim();
    let state2 = "";
    for (let i = 0; i < 100 && state2 !== "COMPLETED"; i++) {
      state2 = spawnSync(join(bin, "sacct"), ["-n", "-X", "-P", "-o", "State", "-j", id], { encoding: "utf8", env }).stdout.trim();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(state2).toBe("COMPLETED");
    expect(readFileSync(join(dir, `slurm-${id}.out`), "utf8")).toBe("installed\n");
  });
});
