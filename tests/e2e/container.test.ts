/**
 * End-to-end: jobs in containers (pyxis's --container-image and friends) through
 * the OCI runtime of this host, on a busybox root file system built here: the
 * batch script and srun tasks see the image, their bind mounts, their variables
 * and only their own (fake) GPU device files, numbered from 0; they run as the
 * job's user; a --mem overrun is OUT_OF_MEMORY, scancel kills the container and
 * leaves no runtime state or mount behind; unusable images and a missing runtime
 * fail the job with the reason in its stderr. Skips, saying why, where this host
 * has no runtime (apt-get install runc), no busybox, or is not root.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { BIN, startCluster, eventually, jobState, jobEnded, ensureUser, isRoot, type Cluster } from "./cluster.ts";
import { findRuntime } from "../../src/agent/container/runtime.ts";

const USER = "spurbox";
const GPUS = 4;
const FAKE_MAJOR = 242; // no driver: an allowed open fails with ENXIO

let c: Cluster;
let skipWhy = "";
let image = "";
let gpuDir = "";
let uid = "";

/** busybox and the libraries ldd lists, every applet as a link, a marker os-release, a sticky /tmp. */
function buildRootfs(root: string): string {
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find((p) => existsSync(p));
  if (busybox === undefined) return "no busybox on this host (Debian: busybox or busybox-static)";
  mkdirSync(join(root, "bin"), { recursive: true });
  copyFileSync(busybox, join(root, "bin", "busybox"));
  chmodSync(join(root, "bin", "busybox"), 0o755);
  const ldd = spawnSync("ldd", [busybox], { encoding: "utf8" }).stdout ?? "";
  for (const lib of ldd.matchAll(/(\/\S+\.so[.\d]*)/g)) {
    const path = lib[1] as string;
    mkdirSync(join(root, dirname(path)), { recursive: true });
    copyFileSync(path, join(root, path));
  }
  const applets = spawnSync(busybox, ["--list"], { encoding: "utf8" }).stdout.split("\n").filter((a) => /^[\w.[-]+$/.test(a));
  for (const a of applets) if (!existsSync(join(root, "bin", a))) symlinkSync("busybox", join(root, "bin", a));
  mkdirSync(join(root, "etc"));
  writeFileSync(join(root, "etc", "os-release"), 'NAME="Spur Busybox Test"\nID=spurbox\n');
  mkdirSync(join(root, "tmp"), { mode: 0o1777 });
  chmodSync(join(root, "tmp"), 0o1777);
  return "";
}

/** An OCI image layout: the base tar, then a layer that whites out /etc/os-release and adds /etc/added. */
function ociLayout(dir: string, baseTar: string): string {
  const blobs = join(dir, "blobs", "sha256");
  mkdirSync(blobs, { recursive: true });
  const put = (data: Buffer): { digest: string; size: number } => {
    const hex = createHash("sha256").update(data).digest("hex");
    writeFileSync(join(blobs, hex), data);
    return { digest: `sha256:${hex}`, size: data.length };
  };
  const second = join(dir, "layer2");
  mkdirSync(join(second, "etc"), { recursive: true });
  writeFileSync(join(second, "etc", ".wh.os-release"), "");
  writeFileSync(join(second, "etc", "added"), "layer two\n");
  spawnSync("tar", ["-C", second, "-czf", join(dir, "layer2.tgz"), "."]);
  const layers = [put(readFileSync(baseTar)), put(readFileSync(join(dir, "layer2.tgz")))];
  const config = put(Buffer.from(JSON.stringify({ config: { Env: ["PATH=/bin", "IMAGE_VAR=from-config"] } })));
  const manifest = put(Buffer.from(JSON.stringify({ schemaVersion: 2, config, layers })));
  writeFileSync(join(dir, "index.json"), JSON.stringify({ schemaVersion: 2, manifests: [manifest] }));
  writeFileSync(join(dir, "oci-layout"), '{"imageLayoutVersion":"1.0.0"}');
  spawnSync("chmod", ["-R", "755", dir]);
  return dir;
}

beforeAll(() => {
  const runtime = findRuntime("");
  if (!runtime.ok) skipWhy = runtime.error.message;
  else if (!isRoot()) skipWhy = "containers need root (spurd runs the OCI runtime)";
  else if (!ensureUser(USER)) skipWhy = `cannot create user ${USER}`;
  if (skipWhy !== "") return;
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000", "--gpus-per-node", String(GPUS), "--gpu-model", "fake"], {
    beforeUp(state, dir) {
      gpuDir = join(dir, "dev");
      mkdirSync(gpuDir);
      for (let i = 0; i < GPUS; i++) spawnSync("mknod", ["-m", "666", join(gpuDir, `fakegpu${i}`), "c", String(FAKE_MAJOR), String(i)]);
      writeFileSync(join(state, "gres.conf"), `Name=gpu Type=fake File=${gpuDir}/fakegpu[0-${GPUS - 1}]\n`);
      image = join(dir, "image");
      skipWhy = buildRootfs(image);
      spawnSync("tar", ["-C", image, "-cf", join(dir, "image.tar"), "."]);
    },
  });
  uid = spawnSync("id", ["-u", USER], { encoding: "utf8" }).stdout.trim();
  mkdirSync(join(c.work, "data"));
  writeFileSync(join(c.work, "data", "marker"), "from the host\n");
  chmodSync(join(c.work, "data"), 0o755);
  if (skipWhy !== "") console.warn(`container tests skipped: ${skipWhy}`);
}, 120_000);

afterAll(() => c?.down());

function skipUnlessReady(ctx: { skip: () => void }): void {
  if (skipWhy !== "") {
    console.warn(`skipped: ${skipWhy}`);
    ctx.skip();
  }
}

function submit(args: string[]): string {
  const r = c.run(["sbatch", "--parsable", ...args], { user: USER });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

const ended = (id: string) => jobEnded(c, id, 90_000);

const output = (id: string) => readFileSync(join(c.work, `slurm-${id}.out`), "utf8");
const pgrep = (pattern: string): boolean => spawnSync("pgrep", ["-f", pattern]).status === 0;
const spool = () => join(c.dir, "cluster", "spool", "n1");

describe("jobs in containers", () => {
  it("runs a batch script in the image as the job's user, with its mounts, variables and only its GPUs", async (ctx) => {
    skipUnlessReady(ctx);
    c.write("box.sh", [
      "#!/bin/sh",
      "grep ^NAME= /etc/os-release",
      'echo "uid=$(id -u) job=$SLURM_JOB_ID gpus=$SLURM_JOB_GPUS visible=$CUDA_VISIBLE_DEVICES"',
      `echo "devices=$(ls ${gpuDir} | tr '\\n' ' ')"`,
      "cat /data/marker",
      "touch /data/x 2>/dev/null && echo data-writable || echo data-readonly",
      "touch /tmp/x 2>/dev/null && echo root-writable || echo root-readonly",
      "pwd",
    ].join("\n"));
    const id = submit(["--gres=gpu:2", `--container-image=${image}`, "--container-mounts=./data:/data:ro", "box.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const out = output(id);
    expect(out).toContain('NAME="Spur Busybox Test"\n');
    const gpus = /gpus=(\S+)/.exec(out)?.[1] ?? "";
    expect(out).toContain(`uid=${uid} job=${id} gpus=${gpus} visible=0,1\n`);
    expect(gpus.split(",")).toHaveLength(2);
    expect(out).toContain(`devices=${gpus.split(",").map((g) => `fakegpu${g} `).join("")}\n`);
    expect(out).toContain("from the host\ndata-readonly\nroot-readonly\n");
    expect(out).toContain(`${c.work}\n`);
  });

  it("runs srun tasks in a tar image, writable on request, GPUs numbered from 0", async (ctx) => {
    skipUnlessReady(ctx);
    const r = c.run(["srun", "-n", "2", "--gres=gpu:1", `--container-image=${join(dirname(image), "image.tar")}`, "--container-writable",
      "sh", "-c", `grep ^ID= /etc/os-release; echo "t=$SLURM_PROCID v=$CUDA_VISIBLE_DEVICES n=$(ls ${gpuDir} | wc -l)"; touch /tmp/x && echo wrote`], { user: USER });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "").sort();
    expect(lines).toEqual(["ID=spurbox", "ID=spurbox", "t=0 v=0 n=1", "t=1 v=0 n=1", "wrote", "wrote"]);
  });

  it("--container-remap-root: root inside, the job's user outside", async (ctx) => {
    skipUnlessReady(ctx);
    const r = c.run(["srun", "--gres=gpu:1", `--container-image=${image}`, "--container-remap-root", "sh", "-c", `id -u; cat /proc/self/uid_map; ls ${gpuDir} | wc -l`], { user: USER });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout.split(/\s+/).filter((w) => w !== "")).toEqual(["0", "0", uid, "1", "1"]);
  });

  it("--container=BUNDLE (Slurm's own): the bundle's root and process defaults, the job's command", async (ctx) => {
    skipUnlessReady(ctx);
    const bundle = join(c.dir, "bundle");
    mkdirSync(bundle);
    writeFileSync(join(bundle, "config.json"), JSON.stringify({ ociVersion: "1.0.2", root: { path: image }, process: { env: ["PATH=/bin", "FROM_BUNDLE=yes"], cwd: "/" } }));
    chmodSync(bundle, 0o755);
    const r = c.run(["srun", `--container=${bundle}`, "sh", "-c", 'grep ^ID= /etc/os-release; echo "$FROM_BUNDLE $SLURM_CONTAINER"'], { user: USER });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`ID=spurbox\nyes ${bundle}\n`);
  });

  it("unpacks an OCI image layout: layers in order, whiteouts, the image's Env", async (ctx) => {
    skipUnlessReady(ctx);
    const layout = ociLayout(join(c.dir, "oci"), join(dirname(image), "image.tar"));
    const r = c.run(["srun", `--container-image=${layout}`, "sh", "-c", 'ls /etc; cat /etc/added; echo "$IMAGE_VAR"'], { user: USER });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("added\nlayer two\nfrom-config\n");
  });

  it("ends a container over its --mem as OUT_OF_MEMORY 0:125", async (ctx) => {
    skipUnlessReady(ctx);
    c.write("hog.sh", '#!/bin/sh\nx=$(head -c 300000000 /dev/zero | tr "\\0" a)\necho survived ${#x}\n');
    const id = submit(["--mem=60M", `--container-image=${image}`, "hog.sh"]);
    expect(await ended(id)).toBe("OUT_OF_MEMORY");
    expect(c.run(["sacct", "-j", id, "-P", "-n", "-o", "JobID,State,ExitCode"]).stdout).toContain(`${id}.batch|OUT_OF_MEMORY|0:125`);
    expect(output(id)).toContain(`Detected 1 oom_kill event in StepId=${id}.batch`);
  });

  it("scancel kills the container and leaves no runtime state, mount or scratch behind", async (ctx) => {
    skipUnlessReady(ctx);
    c.write("long.sh", "#!/bin/sh\necho started\nexec sleep 7321\n");
    const id = submit([`--container-image=${image}`, "long.sh"]);
    const sleeper = () => spawnSync("pgrep", ["-f", "sleep 7321"], { encoding: "utf8" }).stdout.trim();
    await eventually("the container's process runs", () => (sleeper() !== "" ? true : undefined), 60_000);
    expect(c.run(["scancel", id], { user: USER }).code).toBe(0);
    expect(await ended(id)).toBe("CANCELLED");
    await eventually("the container's process is gone", () => (sleeper() === "" ? true : undefined), 30_000);
    await eventually("scratch removed", () => (readdirSync(join(spool(), "containers")).length === 0 ? true : undefined), 30_000);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(spool());
    const list = spawnSync((findRuntime("") as { value: string }).value, ["--root", join(spool(), "oci-state"), "list", "-q"], { encoding: "utf8" });
    expect(list.stdout.trim()).toBe("");
  });

  it("fails a job whose image cannot be used, saying why in its stderr (pyxis style)", async (ctx) => {
    skipUnlessReady(ctx);
    const id = submit(["--container-image=ubuntu:22.04", "--wrap=true"]);
    expect(await ended(id)).toBe("FAILED");
    expect(output(id)).toMatch(/^slurmstepd: error: pyxis: cannot import "ubuntu:22.04": pulling from a registry is not supported/m);
    expect(output(id)).toContain("slurmstepd: error: pyxis: couldn't start container\n");
    const r = c.run(["srun", "--container-image=/no/such/image.sqsh", "true"], { user: USER });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("slurmstepd: error: pyxis: image /no/such/image.sqsh not found on this node\n");
    // Paths the user could not read themselves stay closed: spurd works as root, the check is the user's.
    const secret = join(c.dir, "secret");
    mkdirSync(secret, { mode: 0o700 });
    spawnSync("cp", ["-a", image, join(secret, "image")]);
    writeFileSync(join(secret, "file"), "root only\n");
    const hidden = c.run(["srun", `--container-image=${join(secret, "image")}`, "true"], { user: USER });
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain(`slurmstepd: error: pyxis: ${join(secret, "image")}: Permission denied (for uid ${uid})\n`);
    const mounted = c.run(["srun", `--container-image=${image}`, `--container-mounts=${join(secret, "file")}:/f`, "cat", "/f"], { user: USER });
    expect(mounted.stdout).toBe("");
    expect(mounted.stderr).toContain(`${join(secret, "file")}: Permission denied`);
    const missing = c.run(["srun", `--container-image=${image}`, "no-such-command"], { user: USER });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("slurmstepd-n1: error: execve(): no-such-command: No such file or directory\n");
  });

  it("opens a container job's files as its user too (the runtime runs as root): refused ones fail it, others take the umask", async (ctx) => {
    skipUnlessReady(ctx);
    const rootFile = join(c.dir, "root-only.out");
    writeFileSync(rootFile, "root's\n", { mode: 0o600 });
    const denied = submit([`--container-image=${image}`, "-o", rootFile, "--wrap", "echo pwned"]);
    expect(await ended(denied)).toBe("FAILED");
    expect(readFileSync(rootFile, "utf8")).toBe("root's\n");
    expect(statSync(rootFile).uid).toBe(0);
    const secret = join(c.dir, "root-secret");
    writeFileSync(secret, "top secret\n", { mode: 0o600 });
    const stolen = join(c.work, "box-stolen.out");
    const read = submit([`--container-image=${image}`, "-i", secret, "-o", stolen, "--wrap", "cat"]);
    expect(await ended(read)).toBe("FAILED");
    expect(existsSync(stolen) ? readFileSync(stolen, "utf8") : "").not.toContain("top secret");
    const input = join(c.work, "box.in");
    writeFileSync(input, "from stdin\n", { mode: 0o644 });
    const out = join(c.work, "box-private.out");
    const err = join(c.work, "box-private.err");
    const r = spawnSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--init-groups", "--", "/bin/sh", "-c", 'umask 077; exec "$@"', "sh",
      BIN, "sbatch", "--parsable", `--container-image=${image}`, "-i", input, "-o", out, "-e", err, "--wrap", "cat; echo oops >&2"], { env: c.env, cwd: c.work, encoding: "utf8" });
    expect(await ended(r.stdout.trim())).toBe("COMPLETED");
    expect(readFileSync(out, "utf8")).toBe("from stdin\n");
    expect(readFileSync(err, "utf8")).toBe("oops\n");
    expect([statSync(out).uid, statSync(out).mode & 0o777, statSync(err).mode & 0o777]).toEqual([Number(uid), 0o600, 0o600]);
  });

  it("a restarted spurd leaves no scratch, mount or runtime state of the srun containers it lost", async (ctx) => {
    skipUnlessReady(ctx);
    const srun = spawn("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--init-groups", "--", BIN, "srun", `--container-image=${image}`, "sleep", "6543"], {
      env: c.env, cwd: c.work, stdio: "ignore",
    });
    await eventually("the step's container runs", () => (readdirSync(join(spool(), "containers")).length > 0 && pgrep("sleep 6543") ? true : undefined), 60_000);
    c.reconfigure("# restart");
    await eventually("the step is gone", () => (!pgrep("sleep 6543") ? true : undefined), 30_000);
    expect(readdirSync(join(spool(), "containers"))).toEqual([]);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(spool());
    expect(existsSync(join(spool(), "oci-state")) ? readdirSync(join(spool(), "oci-state")) : []).toEqual([]);
    srun.kill("SIGKILL");
  }, 120_000);

  it("fails container jobs clearly where the configured runtime is missing", async (ctx) => {
    skipUnlessReady(ctx);
    c.reconfigure("ContainerRuntime=/nonexistent/runc");
    const id = submit([`--container-image=${image}`, "--wrap=true"]);
    expect(await ended(id)).toBe("FAILED");
    expect(output(id)).toContain("slurmstepd: error: pyxis: ContainerRuntime=/nonexistent/runc (spur.conf) is not installed on this node\n");
    const plain = submit(["--wrap=echo plain"]);
    expect(await ended(plain)).toBe("COMPLETED");
  }, 120_000);
});
