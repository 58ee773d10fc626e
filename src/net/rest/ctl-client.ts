/**
 * @module rest/ctl-client
 * spurrestd's calls to spurctld: the CLIs' Connect-JSON-over-fetch port, with
 * the caller's verified JWT forwarded in `x-spur-user-token`. spurctld checks
 * the token itself (same key) and acts as the token's user, so spurrestd's own
 * uid (often root) never leaks into a request made for someone else.
 * With replicated controllers (SpurControllers=) calls follow the leader as the
 * CLIs do (net/ctl-client/failover.ts), the leader found last shared by all requests.
 */
import type { ControllerPort } from "../ctl-port.ts";
import { USER_TOKEN_HEADER } from "../rpc-server.ts";
import { controllerPort } from "../ctl-client/controller-port.ts";
import type { Endpoints } from "../ctl-client/failover.ts";

export { USER_TOKEN_HEADER };

/** Makes ControllerPorts that act as the holder of a token, on one controller or a replicated set. */
export function tokenControllerPorts(urls: string[]): (token: string) => ControllerPort {
  const shared: Endpoints = { urls };
  return (token) => controllerPort(urls, { [USER_TOKEN_HEADER]: token }, shared);
}

/** A ControllerPort on one controller that acts as the holder of `token`. */
export function tokenControllerPort(base: string, token: string): ControllerPort {
  return controllerPort([base], { [USER_TOKEN_HEADER]: token });
}
