/**
 * @module roles/cli/port
 * The controller port for srun, salloc and spur: net/ctl-client plus the
 * synchronous "where is the controller" lookups (spur.conf read with node:fs). User
 * commands that only need a CliPort import port-core.ts and skip node:fs.
 */
import { hostname } from "node:os";
import { confPath, configureClientAuth, controllerUrls, readConf } from "../conf-file.ts";
import { callReplicated, type Endpoints } from "../../net/ctl-client/failover.ts";
import { callOne } from "../../net/ctl-client/controller-port.ts";
import { stderrLine } from "./port-core.ts";

export { callOne, controllerPort } from "../../net/ctl-client/controller-port.ts";
export { realPort } from "./port-core.ts";

let sharedEndpoints: Endpoints | undefined;

/** One call by URL (srun/salloc): a replicated controller's URL goes through failover. */
export function call<T>(base: string, method: string, body: unknown): Promise<T> {
  const urls = resolveControllerUrls();
  if (urls.length > 1 && urls.includes(base)) return callReplicated<T>((sharedEndpoints ??= { urls, warn: stderrLine }), method, body);
  return callOne<T>(base, method, body);
}

/** Where the controller is: $SPUR_CONTROLLER_URL, else spur.conf's ControlAddr/ControlPort. */
export function resolveControllerUrl(): string {
  return resolveControllerUrls()[0] ?? "http://127.0.0.1:6817";
}

/** Every controller: $SPUR_CONTROLLER_URL (comma-separated), else spur.conf (SpurControllers or ControlAddr). */
export function resolveControllerUrls(): string[] {
  if (process.env.SPUR_CONTROLLER_URL) return process.env.SPUR_CONTROLLER_URL.split(",");
  try {
    const path = confPath();
    const conf = readConf(path);
    configureClientAuth(conf, hostname());
    return controllerUrls(conf, path);
  } catch {
    return ["http://127.0.0.1:6817"];
  }
}
