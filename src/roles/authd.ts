/**
 * @module roles/authd
 * `spur authd`: the light role a login host runs under AuthType=auth/spur. It holds no
 * job slots and registers nowhere; it only vouches for local callers on SpurAuthSocket=
 * (net/auth/authd.ts), as spurd does on compute nodes. The host must be one the
 * controllers know (SpurLoginHosts=), and hold the cluster secret readable by root only.
 */
import { parseFlagsOrThrow } from "../lib/flags.ts";
import { writeOutput } from "./cli/stdio.ts";
import { confPath, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { authType, shortHostname, startLocalAuthd } from "./auth-setup.ts";

const USAGE = `Usage: spur authd [--conf FILE] [--host NAME]
  Vouch for this host's users (AuthType=auth/spur) on SpurAuthSocket=.
  --conf FILE   spur.conf (default: $SPUR_CONF, else /etc/spur/spur.conf)
  --host NAME   the host name credentials carry (default: this host's short name)
`;

export async function authdMain(argv: string[]): Promise<number> {
  const flags = parseFlagsOrThrow("spur", argv, { values: [["--conf"], ["--host"]], booleans: [["--help", "-h"]] }, "spur authd");
  if (flags.on["--help"]) {
    await writeOutput("stdout", USAGE);
    return 0;
  }
  const path = confPath(flags.values["--conf"]);
  const conf = readConf(path);
  if (authType(conf) !== "auth/spur") {
    process.stderr.write(`spur: error: ${path} has AuthType=${authType(conf)}: spur authd serves auth/spur only\n`);
    return 1;
  }
  const logger = createLogger("spur-authd");
  const served = startLocalAuthd(conf, path, flags.values["--host"] ?? shortHostname(), logger);
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  served?.stop();
  return 0;
}
