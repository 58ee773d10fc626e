/**
 * @module ctld/service-token
 * `scontrol token` on the controller's side (Slurm's auth/jwt issuance rules):
 * a user gets a token for themselves; root and operators (SpurOperators=) may
 * name any user. Lifespan defaults to 1800 s and is capped at one year.
 * Also the verifier spurctld applies to tokens forwarded by spurrestd.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Keyring } from "../net/rest/keyring.ts";
import { lookupUserName } from "../net/users.ts";
import { requester, type ServiceContext } from "./service-context.ts";

export const TOKEN_LIFESPAN_SEC_DEFAULT = 1800;
export const TOKEN_LIFESPAN_SEC_MAX = 365 * 24 * 3600;

export function tokenHandlers(sc: ServiceContext & { keyring?: Keyring }) {
  return {
    async issueToken(req: { username: string; lifespanSec: number }, ctx: HandlerContext) {
      const keyring = sc.keyring;
      if (keyring === undefined) throw new ConnectError("JWT authentication is not configured (no jwt key)", Code.FailedPrecondition);
      const by = requester(ctx);
      const user = req.username === "" ? by.user : req.username;
      const privileged = by.uid === 0 || sc.controller.state.config.operators.includes(by.user);
      if (user !== by.user && !privileged) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
      if (lookupUserName(user) === undefined) throw new ConnectError(`Invalid user name: ${user}`, Code.InvalidArgument);
      const lifespan = req.lifespanSec === 0 ? TOKEN_LIFESPAN_SEC_DEFAULT : req.lifespanSec;
      if (lifespan > TOKEN_LIFESPAN_SEC_MAX) throw new ConnectError(`lifespan ${lifespan} is over the maximum of ${TOKEN_LIFESPAN_SEC_MAX} seconds`, Code.InvalidArgument);
      const iat = Math.floor(sc.now());
      const token = await keyring.sign({ iat, exp: iat + lifespan, sun: user });
      return { token, username: user, expires: iat + lifespan };
    },
  };
}

/** The uid a forwarded token speaks for, or undefined when it is invalid, expired or names no local user. */
export function tokenVerifier(keyring: Keyring, nowSec: () => number) {
  return async (token: string): Promise<number | undefined> => {
    const r = await keyring.verify(token, nowSec());
    if (!r.ok) return undefined;
    return lookupUserName(r.claims.sun)?.uid;
  };
}
