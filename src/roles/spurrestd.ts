/**
 * @module roles/spurrestd
 * The REST daemon (slurmrestd's role): reads spur.conf, opens the JWT key
 * (AuthAltParameters=jwt_key=, else StateSaveLocation/jwt_hs256.key), and
 * serves the hono app of src/net/rest with Bun.serve. Every request goes to
 * spurctld over the Connect JSON RPCs with the caller's token, so spurctld
 * decides what the caller may do. TLS when RestTlsCert/RestTlsKey (or
 * --tls-cert/--tls-key) are given; plaintext only on loopback unless
 * RestAllowPlaintext=yes (or --allow-plaintext).
 *
 * Usage: spurrestd [--conf F] [--listen ADDR] [--port N] [--rate-limit PER_SEC[,BURST]] [--unix PATH]
 *                  [--tls-cert F --tls-key F] [--allow-plaintext]
 */
import { serveFetch } from "../net/rest/node-serve.ts";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { parseFlagsOrThrow } from "../lib/flags.ts";
import { writeOutput } from "./cli/stdio.ts";
import { confPath, controllerAddress, controllerUrls, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createRestApp, type RestDeps } from "../net/rest/app.ts";
import { createAuthenticator } from "../net/rest/auth.ts";
import { tokenControllerPorts } from "../net/rest/ctl-client.ts";
import { keyPathFromConf, openKeyring } from "../net/rest/keyring.ts";
import { isLoopback } from "../net/peer-identity.ts";
import { lookupUid, lookupUserName } from "../net/users.ts";
import { configureClientTls, expandHostPath } from "../net/tls.ts";

const expandOpt = (path: string | undefined): string | undefined => (path === undefined ? undefined : expandHostPath(path));

export const REST_PORT_DEFAULT = 6820;
const BODY_BYTES_MAX = 4 * 1024 * 1024;

function rateLimit(text: string | undefined): { perSec: number; burst: number } {
  const [perSec = "100", burst] = (text ?? "").split(",");
  const p = Number(perSec || "100");
  if (!Number.isFinite(p) || p < 0) throw new Error(`spurrestd: error: invalid rate limit "${text}"`);
  return { perSec: p, burst: Number(burst ?? 2 * p) || 2 * p };
}

/**
 * rest_auth/local: a Unix socket whose peers are identified by the kernel, relayed to a
 * private loopback listener serving the same routes (net/rest/local-socket.ts).
 */
async function startLocal(path: string | undefined, deps: RestDeps, logger: ReturnType<typeof createLogger>): Promise<{ stop(): Promise<void> } | undefined> {
  if (path === undefined || path === "") return undefined;
  const { serveLocal } = await import("../net/rest/local-serve.ts");
  let relayPeer: (port: number) => number | undefined = () => undefined;
  const localApp = createRestApp({
    ...deps,
    localPeer: (c) => {
      const ip = (c.env as { requestIP?: (r: Request) => { address: string; port: number } | null } | undefined)?.requestIP?.(c.req.raw);
      const uid = ip === null || ip === undefined ? undefined : relayPeer(ip.port);
      return uid === undefined ? undefined : lookupUid(uid).name;
    },
  });
  // The inner listener is node:http with the usual limits, not Bun.serve (rest/local-serve).
  const local = await serveLocal(path, (req, env) => localApp.fetch(req, env), { bodyBytesMax: BODY_BYTES_MAX });
  relayPeer = local.peerOf;
  logger.info({ message: "listening", unix: path, auth: "rest_auth/local" });
  return local;
}

const USAGE = `Usage: spurrestd [options]
  --conf FILE                  spur.conf (default: $SPUR_CONF or $SLURM_CONF, else /etc/spur/spur.conf)
  --listen ADDR                listen address (default: RestAddr, else 127.0.0.1)
  --port N                     port (default: RestPort, else ${REST_PORT_DEFAULT})
  --rate-limit PER_SEC[,BURST] requests per second per client (default: RestRateLimit)
  --unix PATH                  also serve rest_auth/local on this socket (default: RestUnixSocket)
  --tls-cert FILE --tls-key FILE   serve HTTPS (default: RestTlsCert, RestTlsKey)
  --allow-plaintext            allow plain HTTP on a non-loopback address
`;

const SPEC = {
  values: [["--conf"], ["--listen"], ["--port"], ["--rate-limit"], ["--unix"], ["--tls-cert"], ["--tls-key"]],
  booleans: [["--allow-plaintext"], ["--help", "-h"]],
} as const;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlagsOrThrow("spurrestd", argv, SPEC);
  if (flags.on["--help"]) {
    await writeOutput("stdout", USAGE);
    return 0;
  }
  const logger = createLogger("spurrestd");
  const path = confPath(flags.values["--conf"]);
  const conf = readConf(path);
  const g = conf.globals;
  const stateDir = g.get("statesavelocation") ?? "/var/spool/spur/ctld";
  const keyring = openKeyring(keyPathFromConf(g, stateDir));
  const operators = (g.get("spuroperators") ?? "").split(",").filter(Boolean);
  const ctlUrls = process.env.SPUR_CONTROLLER_URL ? process.env.SPUR_CONTROLLER_URL.split(",") : controllerUrls(conf);
  const ctlFor = tokenControllerPorts(ctlUrls);
  const listen = flags.values["--listen"] ?? g.get("restaddr") ?? "127.0.0.1";
  const port = Number(flags.values["--port"] ?? g.get("restport") ?? REST_PORT_DEFAULT);
  configureClientTls(g);
  const certPath = expandOpt(flags.values["--tls-cert"] ?? g.get("resttlscert"));
  const keyPath = expandOpt(flags.values["--tls-key"] ?? g.get("resttlskey"));
  const plaintextOk = flags.on["--allow-plaintext"] === true || /^(yes|true|1)$/i.test(g.get("restallowplaintext") ?? "");
  if (certPath === undefined && !isLoopback(listen) && !plaintextOk) {
    throw new Error(`spurrestd: error: refusing plaintext HTTP on ${listen}: give RestTlsCert/RestTlsKey, or RestAllowPlaintext=yes`);
  }
  const deps: RestDeps = {
    auth: createAuthenticator({
      verify: (token, nowSec) => keyring.verify(token, nowSec),
      mint: (user, lifespanSec, nowSec) => keyring.sign({ iat: Math.floor(nowSec), exp: Math.floor(nowSec) + lifespanSec, sun: user }),
      isPrivileged: (user) => user === "root" || operators.includes(user),
      lookupUser: (name) => {
        const u = lookupUserName(name);
        return u === undefined ? undefined : { uid: u.uid, group: u.group };
      },
    }),
    controllerFor: (caller) => ctlFor(caller.token),
    host: {
      cluster: g.get("clustername") ?? "spur",
      hostname: hostname(),
      homeOf: (user) => lookupUserName(user)?.home ?? "/tmp",
      operators: () => operators,
      controller: controllerAddress(conf),
    },
    nowSec: () => Date.now() / 1000,
    rateLimit: rateLimit(flags.values["--rate-limit"] ?? g.get("restratelimit")),
    bodyBytesMax: BODY_BYTES_MAX,
  };
  const app = createRestApp(deps);
  const local = await startLocal(flags.values["--unix"] ?? g.get("restunixsocket"), deps, logger);
  const tls = certPath !== undefined && keyPath !== undefined ? { cert: readFileSync(certPath, "utf8"), key: readFileSync(keyPath, "utf8") } : undefined;
  // node:http, not Bun.serve: the public listener must close half-sent and idle connections (rest/node-serve).
  const server = await serveFetch((req, env) => app.fetch(req, env), { hostname: listen, port, bodyBytesMax: BODY_BYTES_MAX, ...(tls ? { tls } : {}) });
  logger.info({ message: "listening", host: listen, port: server.port, tls: tls !== undefined, controller: ctlUrls.join(","), conf: path });
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  await server.stop();
  await local?.stop();
  logger.info({ message: "stopped" });
  return 0;
}
