/**
 * `scontrol reconfigure`'s own output: nothing on success; "slurm_reconfigure error: <text>"
 * for a refusal ("Invalid user id") or for each setting kept until a restart, exit 1; extra
 * words complain and reconfigure anyway, as Slurm's scontrol does.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { fakePort } from "./helpers.ts";

function run(argv: string[], answer: () => Promise<{ refused: string[] }>) {
  const { port } = fakePort({ now: 1000 });
  let calls = 0;
  port.ctl.reconfigure = () => {
    calls++;
    return answer();
  };
  return scontrolMain(argv, port).then((r) => ({ ...r, calls }));
}

describe("scontrol reconfigure", () => {
  it("prints nothing when everything applied; 'reconfig' abbreviates", async () => {
    expect(await run(["reconfigure"], async () => ({ refused: [] }))).toEqual({ stdout: "", stderr: "", exitCode: 0, calls: 1 });
    expect((await run(["rec"], async () => ({ refused: [] }))).calls).toBe(1);
  });

  it("reports each setting kept as it was, and refusals, in Slurm's form", async () => {
    const kept = await run(["reconfigure"], async () => ({ refused: ["SchedulerType change requires restart of the slurmctld daemon to take effect"] }));
    expect([kept.stderr, kept.exitCode]).toEqual(["slurm_reconfigure error: SchedulerType change requires restart of the slurmctld daemon to take effect\n", 1]);
    const denied = await run(["reconfigure"], async () => {
      throw new RpcError("permission_denied", "Invalid user id");
    });
    expect([denied.stderr, denied.exitCode]).toEqual(["slurm_reconfigure error: Invalid user id\n", 1]);
  });

  it("complains about extra words and reconfigures anyway", async () => {
    const r = await run(["reconfigure", "a", "b"], async () => ({ refused: [] }));
    expect([r.stderr, r.exitCode, r.calls]).toEqual(["too many arguments for keyword:reconfigure\n", 1, 1]);
  });
});
