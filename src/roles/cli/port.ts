/**
 * @module roles/cli/port
 * The real CliPort: controller calls in Connect's JSON form over plain fetch
 * (no protobuf runtime or Connect client is loaded: measured 25-30 ms of
 * start-up saved, see shared/MEASURED.md), the invoking user, env and clock.
 */
import { hostname } from "node:os";
import { readFileSync } from "node:fs";
import { RpcError, type CliPort, type ControllerPort } from "../../cli/io.ts";
import { confPath, controllerUrl, readConf } from "../conf-file.ts";
import { lookupUid, lookupUserName } from "../../net/users.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";
import type { Plain } from "../../lib/plain.ts";
import type { ListJobsResponse } from "../../net/gen/spur/v1/controller_pb.ts";

export async function call<T>(base: string, method: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/spur.v1.Controller/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
  } catch {
    throw new RpcError("unavailable", "Unable to contact slurm controller (connect failure)");
  }
  const text = await res.text();
  if (!res.ok) {
    let parsed: { code?: string; message?: string } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not a Connect error body */
    }
    throw new RpcError(parsed.code ?? "unknown", parsed.message ?? `controller answered HTTP ${res.status}`);
  }
  return JSON.parse(text) as T;
}

export function controllerPort(base: string): ControllerPort {
  return {
    submit: (req) => call(base, "Submit", req),
    listJobs: async (req) => {
      // The controller leaves default-valued fields out (proto3 JSON); restore them.
      const res = await call<Plain<ListJobsResponse>>(base, "ListJobs", req);
      const defaults = emptyJobInfo();
      return { ...res, jobs: res.jobs.map((j) => withDefaults(j, defaults)) };
    },
    listNodes: () => call(base, "ListNodes", {}),
    cancel: (req) => call(base, "Cancel", req),
    updateJob: (req) => call(base, "UpdateJob", req),
    updateNode: async (req) => {
      await call(base, "UpdateNode", req);
    },
    ping: () => call(base, "Ping", {}),
    getConfig: () => call(base, "GetConfig", {}),
    waitJob: (req) => call(base, "WaitJob", req),
  };
}

/** Where the controller is: $SPUR_CONTROLLER_URL, else spur.conf's ControlAddr/ControlPort. */
export function resolveControllerUrl(): string {
  if (process.env.SPUR_CONTROLLER_URL) return process.env.SPUR_CONTROLLER_URL;
  try {
    return controllerUrl(readConf(confPath()));
  } catch {
    return "http://127.0.0.1:6817";
  }
}

export function realPort(): CliPort {
  const uid = process.getuid?.() ?? 0;
  const user = lookupUid(uid);
  return {
    ctl: controllerPort(resolveControllerUrl()),
    invoker: { uid, gid: process.getgid?.() ?? user.gid, user: user.name, group: user.group, cwd: process.cwd(), hostname: hostname(), umask: process.umask() },
    env: process.env,
    now: () => Date.now() / 1000,
    readFile: async (path) => {
      try {
        return readFileSync(path, "utf8");
      } catch {
        return undefined;
      }
    },
    readStdin: async () => (process.stdin.isTTY ? "" : await Bun.stdin.text()),
    write: (stream, text) => {
      (stream === "stdout" ? process.stdout : process.stderr).write(text);
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    userKnown: (u) => (/^\d+$/.test(u) ? lookupUid(Number(u)).name !== u : lookupUserName(u) !== undefined),
  };
}
