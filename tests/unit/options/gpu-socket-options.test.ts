/**
 * --gpus-per-socket, --sockets-per-node and --gres-flags reach the job request
 * (issue 6), with Slurm's checks: --gpus-per-socket needs --sockets-per-node,
 * --gres-flags takes known flags only.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { buildRequest } from "../../../src/sched/plan/request.ts";
import { errorText } from "../../../src/compat/options/messages.ts";

const INVOKER = { cwd: "/home/alice", hostname: "login1" };

function sbatch(argv: string[], env: Record<string, string> = {}) {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  return sbatchRequest({ cmd: "sbatch", argv, env, invoker: INVOKER, now: 0 }, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
}

describe("GPU socket options", () => {
  it("records --gpus-per-socket, --sockets-per-node and --gres-flags without a warning", () => {
    const r = sbatch(["--gpus-per-socket=h100:2", "--sockets-per-node=2", "--gres-flags=enforce-binding"]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect([r.value.spec.gpusPerSocket, r.value.spec.socketsPerNode, r.value.spec.gresFlags, r.value.warnings]).toEqual(["h100:2", 2, "enforce-binding", []]);
    const req = buildRequest(r.value.spec, { defMemPerCpuMiB: 0 } as never, (h) => [h]);
    expect(typeof req === "string" ? req : [req.gpusPerSocket, req.socketsPerNode, req.enforceBinding, req.gpuType]).toEqual([2, 2, true, "h100"]);
  });

  it("a count of 0 needs no --sockets-per-node (oracle 22.05: --gpus-per-socket=0 alone is submitted; differential seed 13415)", () => {
    for (const v of ["0", "mi300x:0"]) expect(sbatch([`--gpus-per-socket=${v}`]).ok, v).toBe(true);
  });

  it("a type alone asks for one GPU of it (oracle 22.05: held --gpus-per-socket=x --sockets-per-node=1 is submitted)", () => {
    expect(sbatch(["--gpus-per-socket=x", "--sockets-per-node=1"]).ok).toBe(true);
  });

  it("reads SBATCH_GRES_FLAGS and SBATCH_GPUS_PER_SOCKET", () => {
    const r = sbatch(["--sockets-per-node=1"], { SBATCH_GRES_FLAGS: "enforce-binding", SBATCH_GPUS_PER_SOCKET: "1" });
    expect(r.ok && [r.value.spec.gresFlags, r.value.spec.gpusPerSocket]).toEqual(["enforce-binding", "1"]);
  });

  it.each([
    [["--gpus-per-socket=1"], "--gpus-per-socket option requires --sockets-per-node specification\nInvalid generic resource (gres) specification", 1],
    // exit 255 as Slurm 22.05 (oracle)
    [["--gres-flags=bogus"], "Invalid --gres-flags specification", 255],
    [["--gres-flags=enforce-binding,disable-binding"], "Invalid --gres-flags specification", 255],
    [["--sockets-per-node=0"], undefined, undefined],
  ] as const)("%j is rejected", (argv, message, exitCode) => {
    const r = sbatch([...argv]);
    expect(r.ok).toBe(false);
    if (r.ok || message === undefined) return;
    expect([r.error.message, r.error.exitCode]).toEqual([message, exitCode]);
    expect(errorText("sbatch", r.error)).toContain(message.split("\n")[0]);
  });

  it("without enforce-binding the request does not bind", () => {
    const r = sbatch(["--gres-flags=disable-binding", "--gpus=1"]);
    const req = r.ok ? buildRequest(r.value.spec, { defMemPerCpuMiB: 0 } as never, (h) => [h]) : "failed";
    expect(typeof req === "string" ? req : req.enforceBinding).toBeUndefined();
  });
});

describe("SLURM_GPUS_PER_SOCKET", () => {
  it("is set in the job's environment only when --gpus-per-socket was given", async () => {
    const { ENV_ROWS } = await import("../../../src/compat/job-env-rows.ts");
    const row = ENV_ROWS.find((r) => r.name === "SLURM_GPUS_PER_SOCKET");
    const given = sbatch(["--gpus-per-socket=2", "--sockets-per-node=1"]);
    const plain = sbatch([]);
    if (!given.ok || !plain.ok || row === undefined) throw new Error("setup");
    expect(row.value({ spec: given.value.spec } as never)).toBe("2");
    expect(row.value({ spec: plain.value.spec } as never) ?? undefined).toBeUndefined();
  });
});
