/**
 * @module rest/ctl-client
 * spurrestd's calls to spurctld: the CLIs' Connect-JSON-over-fetch port, with
 * the caller's verified JWT forwarded in `x-spur-user-token`. spurctld checks
 * the token itself (same key) and acts as the token's user, so spurrestd's own
 * uid (often root) never leaks into a request made for someone else.
 */
import { RpcError, type ControllerPort } from "../../cli/io.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";
import type { Plain } from "../../lib/plain.ts";
import type { ListJobsResponse } from "../gen/spur/v1/controller_pb.ts";

import { USER_TOKEN_HEADER } from "../rpc-server.ts";

export { USER_TOKEN_HEADER };

async function call<T>(base: string, token: string, method: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/spur.v1.Controller/${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", [USER_TOKEN_HEADER]: token },
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

/** A ControllerPort that acts as the holder of `token`. */
export function tokenControllerPort(base: string, token: string): ControllerPort {
  const defaults = emptyJobInfo();
  return {
    submit: (req) => call(base, token, "Submit", req),
    listJobs: async (req) => {
      const res = await call<Plain<ListJobsResponse>>(base, token, "ListJobs", req);
      return { ...res, jobs: res.jobs.map((j) => withDefaults(j, defaults)) };
    },
    listNodes: () => call(base, token, "ListNodes", {}),
    cancel: (req) => call(base, token, "Cancel", req),
    updateJob: (req) => call(base, token, "UpdateJob", req),
    updateNode: async (req) => {
      await call(base, token, "UpdateNode", req);
    },
    ping: () => call(base, token, "Ping", {}),
    getConfig: () => call(base, token, "GetConfig", {}),
    waitJob: (req) => call(base, token, "WaitJob", req),
  };
}
