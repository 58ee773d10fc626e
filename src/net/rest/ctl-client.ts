/**
 * @module rest/ctl-client
 * spurrestd's calls to spurctld: the CLIs' Connect-JSON-over-fetch port, with
 * the caller's verified JWT forwarded in `x-spur-user-token`. spurctld checks
 * the token itself (same key) and acts as the token's user, so spurrestd's own
 * uid (often root) never leaks into a request made for someone else.
 */
import type { ControllerPort } from "../../cli/io.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";
import type { Plain } from "../../lib/plain.ts";
import type { ListJobsResponse } from "../gen/spur/v1/controller_pb.ts";

import { USER_TOKEN_HEADER } from "../rpc-server.ts";
import { callOne } from "../../roles/cli/port.ts";

export { USER_TOKEN_HEADER };

/** One call as the holder of `token` (the controller verifies it; see net/rpc-server). */
const call = <T>(base: string, token: string, method: string, body: unknown): Promise<T> =>
  callOne<T>(base, method, body, { [USER_TOKEN_HEADER]: token });

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
