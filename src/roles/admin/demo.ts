/**
 * @module roles/admin/demo
 * `spur demo`: a cluster of `spur up`'s shape in a fresh directory, a real job, squeue and
 * sacct, then the address of the cluster's web page, left up for it (roles/demo.ts).
 */
import { defineAdminCommand } from "./command.ts";
import { clusterArgs, upOptionsOf } from "./up.ts";

export default defineAdminCommand({
  meta: { name: "spur demo", description: "up, run a job, show squeue and sacct, print the web page's address (the cluster stays up)" },
  args: clusterArgs,
  // the state directory is the demo's own (made when it runs)
  run: async ({ args }) => (await import("../demo.ts")).runDemo(upOptionsOf(args, "")),
});
