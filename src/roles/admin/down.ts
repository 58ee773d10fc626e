/**
 * @module roles/admin/down
 * `spur down`: stop the cluster `spur up` started in a state directory (a cluster of
 * namespaced hosts also takes its namespaces and bridge down).
 */
import { defineAdminCommand } from "./command.ts";

export default defineAdminCommand({
  meta: { name: "spur down", description: "stop a cluster of spur up" },
  args: {
    "state-dir": { type: "string", valueHint: "DIR", default: "/tmp/spur", description: "its state directory" },
  },
  run: async ({ args }) => {
    const dir = args["state-dir"];
    const { existsSync } = await import("node:fs");
    const { join } = await import("node:path");
    const stopped = existsSync(join(dir, "netns.json")) ? await (await import("../netns-cluster.ts")).downNetns(dir) : await (await import("../local-cluster.ts")).down(dir);
    process.stdout.write(`stopped ${stopped} daemons\n`);
    return 0;
  },
});
