/**
 * @module roles/admin/install-links
 * `spur install-links DIR`: the Slurm-named links (sbatch, squeue, ...) to the compiled binary.
 */
import { defineAdminCommand } from "./command.ts";

export default defineAdminCommand({
  meta: { name: "spur install-links", description: "write the Slurm-named links (sbatch, squeue, ...) in a directory" },
  args: {
    dir: { type: "positional", required: false, valueHint: "DIR", description: "where the links go (made if missing)" },
  },
  run: async ({ args }) => {
    if (args.dir === undefined) {
      process.stderr.write("spur: error: install-links needs a directory\n");
      return 1;
    }
    return (await import("../install-links.ts")).installLinks(args.dir);
  },
});
