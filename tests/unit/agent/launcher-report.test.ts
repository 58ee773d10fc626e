/**
 * srun's listener and the agent's task-exit reports, end to end in one process:
 * the agent's runTasks (real child processes, no cgroups) reports each task's
 * exit to the listener named in the request, which keeps only reports of its
 * own step that carry its token.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, createServer } from "node:net";
import { networkInterfaces } from "node:os";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Launcher, RunTasksRequestSchema } from "../../../src/net/gen/spur/v1/agent_pb.ts";
import { runTasks } from "../../../src/agent/tasks.ts";
import { localAddressTowards, openStepLauncher, type StepLauncher } from "../../../src/roles/cli/srun-launcher.ts";

let open: StepLauncher | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe("srun's listener", () => {
  it("closes a connection that sends nothing or never finishes its headers (the limits of every listener)", async () => {
    const launcher = (open = await openStepLauncher("127.0.0.1", 7, 0, { headersMs: 200, idleMs: 200 }));
    const closed = (text: string) =>
      new Promise<void>((done) => {
        const sock = connect(launcher.port, "127.0.0.1", () => sock.write(text));
        sock.on("error", () => undefined);
        sock.on("close", () => done());
      });
    // No timing assertion: a connection left open runs into the test's timeout.
    await closed("");
    await closed("POST /spur.v1.Launcher/TaskExit HTTP/1.1\r\nHost: x\r\nContent-");
  }, 10_000);

  it("receives each task's exit from the agent before the stream carries it", async () => {
    const launcher = (open = await openStepLauncher("127.0.0.1", 7, 0));
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", SLURMD_NODENAME: "n1" };
    const req = create(RunTasksRequestSchema, {
      jobId: 7, stepId: 0, argv: ["sh", "-c", 'exit $((3 + SLURM_PROCID))'], workDir: "/tmp",
      tasks: [{ taskId: 0, env: { ...env, SLURM_PROCID: "0" } }, { taskId: 1, env: { ...env, SLURM_PROCID: "1" } }],
      uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, user: "me",
      launcher: `127.0.0.1:${launcher.port}`, launcherToken: launcher.token,
    });
    const frames = [];
    for await (const f of runTasks(req, new AbortController().signal)) if (f.exited) frames.push(f);
    expect(frames.map((f) => f.exitCode).sort()).toEqual([3, 4]);
    // each exit frame follows its report: once the stream has ended, srun has every report
    expect(launcher.exits.get(0)).toEqual({ node: "n1", exitCode: 3, exitSignal: 0 });
    expect(launcher.exits.get(1)).toEqual({ node: "n1", exitCode: 4, exitSignal: 0 });
  });

  it("ignores reports without the step's token or for another step", async () => {
    const launcher = (open = await openStepLauncher("127.0.0.1", 7, 1));
    const client = createClient(Launcher, createConnectTransport({ baseUrl: `http://127.0.0.1:${launcher.port}`, httpVersion: "1.1" }));
    await client.taskExit({ jobId: 7, stepId: 1, node: "n1", taskIds: [0], exitCode: 9, token: "guess" });
    await client.taskExit({ jobId: 7, stepId: 2, node: "n1", taskIds: [0], exitCode: 9, token: launcher.token });
    expect(launcher.exits.size).toBe(0);
    await client.taskExit({ jobId: 7, stepId: 1, node: "n1", taskIds: [0], exitCode: 2, token: launcher.token });
    await client.taskExit({ jobId: 7, stepId: 1, node: "n1", taskIds: [0], exitCode: 5, token: launcher.token });
    expect(launcher.exits.get(0)?.exitCode).toBe(2);
  });

  it("finds the local address it reaches a node from", async (ctx) => {
    expect(await localAddressTowards("127.0.0.1", 1)).toBe("127.0.0.1"); // loopback: no probe
    const lan = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && i.family === "IPv4" && !i.internal)?.address;
    if (lan === undefined) ctx.skip(); // no other interface to probe through
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", () => resolve()));
    const port = (server.address() as { port: number }).port;
    expect(await localAddressTowards(lan as string, port)).toBe(lan);
    server.close();
  });
});
