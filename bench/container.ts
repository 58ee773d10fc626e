/**
 * @module bench/container
 * What running a job step in a container costs on this node, one JSON object per
 * line: preparing the root file system (overlay of a directory image, extraction of
 * a tar image), starting `true` through the OCI runtime compared with a plain
 * start, and releasing (runtime state, overlay, scratch). Uses spurd's own code
 * (agent/container) on a busybox image built in a temporary directory.
 * Usage: bun bench/container.ts [--runs 20]   (root, runc or crun, busybox)
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findRuntime } from "../src/agent/container/runtime.ts";
import { prepareContainer, releaseContainer, taskCommand, type ContainerLaunch } from "../src/agent/container/launch.ts";

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf("--runs") + 1] ?? 0) || 20;

function emit(metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(3)), unit, ...extra }));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function run(argv: string[]): Promise<number> {
  return new Promise((resolve) => {
    const [cmd, ...rest] = argv;
    const child = spawn(cmd ?? "true", rest, { stdio: "ignore" });
    child.once("error", () => resolve(-1));
    child.once("exit", (code) => resolve(code ?? -1));
  });
}

function busyboxImage(root: string): boolean {
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find((p) => existsSync(p));
  if (busybox === undefined) return false;
  mkdirSync(join(root, "bin"), { recursive: true });
  copyFileSync(busybox, join(root, "bin", "busybox"));
  chmodSync(join(root, "bin", "busybox"), 0o755);
  for (const lib of (spawnSync("ldd", [busybox], { encoding: "utf8" }).stdout ?? "").matchAll(/(\/\S+\.so[.\d]*)/g)) {
    mkdirSync(join(root, dirname(lib[1] as string)), { recursive: true });
    copyFileSync(lib[1] as string, join(root, lib[1] as string));
  }
  for (const a of ["sh", "true"]) symlinkSync("busybox", join(root, "bin", a));
  return true;
}

async function main(): Promise<number> {
  const runtime = findRuntime("");
  if (!runtime.ok || process.getuid?.() !== 0) {
    emit("container_available", 0, "bool", { why: runtime.ok ? "not root" : runtime.error.message });
    return 0;
  }
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-ctr-"));
  chmodSync(dir, 0o755);
  const image = join(dir, "image");
  if (!busyboxImage(image)) {
    emit("container_available", 0, "bool", { why: "no busybox" });
    return 0;
  }
  spawnSync("tar", ["-C", image, "-cf", join(dir, "image.tar"), "."]);
  const conditions = { runtime: runtime.value, runs: RUNS, loadAvg1m: Number(loadavg()[0]?.toFixed(2)) };
  for (const [form, path] of [["directory", image], ["tar", join(dir, "image.tar")]] as const) {
    const prepare: number[] = [];
    const start: number[] = [];
    const release: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const launch: ContainerLaunch = {
        request: { image: path, bundle: "", mounts: [], workdir: "", keepEnv: [], remapRoot: false, writable: false, mountHome: false },
        problem: "", runtime: runtime.value, stateRoot: join(dir, "state"), scratch: join(dir, "scratch", String(i)),
        idPrefix: `spur-bench-${process.pid}-${i}`, cdiNames: [], devices: {}, workDir: "/", home: "", uid: 65534, gid: 65534,
      };
      let t0 = performance.now();
      const prepared = await prepareContainer(launch);
      if (!prepared.ok) throw new Error(prepared.problem);
      prepare.push(performance.now() - t0);
      const argv = taskCommand(launch, prepared.rootfs, { index: 0, args: ["/bin/true"], env: { PATH: "/bin" }, uid: 65534, gid: 65534 });
      t0 = performance.now();
      const code = await run(argv);
      if (code !== 0) throw new Error(`runtime exited ${code}`);
      start.push(performance.now() - t0);
      t0 = performance.now();
      await releaseContainer(launch, prepared.rootfs, 1);
      release.push(performance.now() - t0);
    }
    emit("container_prepare_ms_median", median(prepare), "ms", { ...conditions, image: form });
    emit("container_run_true_ms_median", median(start), "ms", { ...conditions, image: form });
    emit("container_release_ms_median", median(release), "ms", { ...conditions, image: form });
  }
  const plain: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run(["/bin/true"]);
    plain.push(performance.now() - t0);
  }
  emit("plain_run_true_ms_median", median(plain), "ms", conditions);
  rmSync(dir, { recursive: true, force: true });
  return 0;
}

process.exitCode = await main();
