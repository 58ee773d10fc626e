/**
 * @module roles/admin/version
 * `spur version`: the version, commit and build date. roles/spur.ts answers `spur version`
 * alone before citty loads; this is the same answer for the command tree (`spur help version`).
 */
import { defineAdminCommand } from "./command.ts";

export default defineAdminCommand({
  meta: { name: "spur version", description: "print the version (also: spur --version, spur -V)" },
  args: {},
  run: async () => {
    const { versionLine } = await import("../spur.ts");
    process.stdout.write(versionLine());
    return 0;
  },
});
