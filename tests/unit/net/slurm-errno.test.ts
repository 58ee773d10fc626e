/**
 * @module tests/unit/net/slurm-errno
 * Typed rejections end to end: a name from compat/slurm-errors.ts becomes, at the RPC edge,
 * the Connect code of its class and Slurm's number in x-slurm-errno; the CLI side reads the
 * number back, and spurrestd reports it as error_number.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Controller } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";
import { rejectIfError, rejectionError } from "../../../src/ctld/service-context.ts";
import { SLURM_ERRORS, slurmErrno, type SlurmErrorName } from "../../../src/compat/slurm-errors.ts";
import { errnoOf } from "../../../src/net/ctl-client/rpc-errno.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { toRestError } from "../../../src/net/rest/ctl-errors.ts";
import { rejected } from "../../../src/sched/model/apply-result.ts";

const servers: RpcServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A controller whose Heartbeat rejects with the given typed error. */
async function rejecting(name: SlurmErrorName, message: string): Promise<Response> {
  const server = await startRpcServer((router) => {
    router.service(Controller, {
      heartbeat: () => {
        rejectIfError(rejected(name, message));
        return {};
      },
    } as never);
  }, { host: "127.0.0.1", port: 0 });
  servers.push(server);
  return fetch(`http://127.0.0.1:${server.port}/spur.v1.Controller/Heartbeat`, {
    method: "POST", headers: { "content-type": "application/json" }, body: "{}",
  });
}

describe("typed rejections", () => {
  it("every name has a class and a number that is Slurm's or marked as Spur's own", () => {
    for (const [name, row] of Object.entries(SLURM_ERRORS)) {
      expect(row.errno, name).toBeGreaterThanOrEqual(0);
      expect(row.text, name).not.toBe("");
    }
    expect(slurmErrno("InvalidJobId")).toBe(2017);
    expect(slurmErrno("no such name")).toBe(0);
  });

  it("travel with their Connect code and Slurm's number, and the clients read the number back", async () => {
    const res = await rejecting("InvalidJobId", "Invalid job id specified");
    const body = (await res.json()) as { code: string; message: string };
    expect(body).toMatchObject({ code: "invalid_argument", message: "Invalid job id specified" });
    expect(errnoOf(res)).toBe(2017);

    const denied = await rejecting("AccessDenied", "Access/permission denied");
    expect(((await denied.json()) as { code: string }).code).toBe("permission_denied");
    expect(errnoOf(denied)).toBe(2002);
  });

  it("a rejection without words of its own gets Slurm's text; Spur's own rejections carry no number", () => {
    expect(rejectionError("", "ReservationInvalid").message).toContain("Requested reservation is invalid");
    expect(rejectionError("x", "StaleJobEnd").metadata.get("x-slurm-errno")).toBeNull();
  });

  it("spurrestd reports the number as error_number", () => {
    const rest = toRestError(new RpcError("invalid_argument", "Invalid node state specified", 2028), "update_node");
    expect(rest.item()).toMatchObject({ error_number: 2028, error: "Invalid node state specified" });
    const plain = toRestError(new RpcError("invalid_argument", "something"), "x");
    expect(plain.item().error_number).toBe(2002);
  });
});
