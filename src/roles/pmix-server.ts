/**
 * @module roles/pmix-server
 * `spur pmix-server`: one node's PMIx server for one `srun --mpi=pmix` step, started by spurd as
 * the job's user (agent/pmix-serve.ts) and speaking agent/pmix/protocol.ts on stdin/stdout. The
 * work is agent/pmix/server.ts; this shell reads the lines and ends the server when stdin ends
 * (the step is over, or spurd is gone).
 */
import { splitLines, type FenceAnswer, type ServerLine, type ServerStart } from "../agent/pmix/protocol.ts";
import type { RunningServer } from "../agent/pmix/server.ts";

export async function main(_argv: string[]): Promise<number> {
  const { startPmixServer } = await import("../agent/pmix/server.ts");
  const send = (l: ServerLine): void => {
    process.stdout.write(`${JSON.stringify(l)}\n`);
  };
  let server: RunningServer | undefined;
  let started = false;
  let rest = "";
  process.stdin.setEncoding("utf8");
  for await (const chunk of process.stdin as AsyncIterable<string>) {
    const split = splitLines(rest, chunk);
    rest = split.rest;
    for (const line of split.lines) {
      if (!started) {
        started = true;
        server = startPmixServer(JSON.parse(line) as ServerStart, process.env, send);
        if (server === undefined) return 1;
      } else {
        server?.answer(JSON.parse(line) as FenceAnswer);
      }
    }
  }
  server?.stop();
  return 0;
}
