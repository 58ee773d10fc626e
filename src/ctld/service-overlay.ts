/**
 * @module ctld/service-overlay
 * The OverlayPeers handler: an agent announces its overlay member record (public key,
 * overlay address, endpoint) and gets every live member back. Membership is soft state
 * (net/overlay-peers.ts), like heartbeats: not logged, rebuilt within one refresh after a
 * controller restart. Only agents (root or the controller's own user) may call it.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ServiceContext } from "./service-context.ts";
import { requireAgent } from "./service-agent.ts";
import { toPlain } from "../lib/to-plain.ts";
import {
  OVERLAY_KEEPALIVE_SEC, OVERLAY_REFRESH_MS, announce, liveMembers, type OverlayRegistry,
} from "../net/overlay-peers.ts";
import type { OverlayPeersRequest } from "../net/gen/spur/v1/controller_pb.ts";

export function overlayHandlers(sc: ServiceContext) {
  const registry: OverlayRegistry = new Map();
  const c = sc.controller;
  const isDown = (name: string): boolean => {
    const node = c.state.nodes.get(name);
    return node === undefined || node.down || node.info.state === "DOWN";
  };
  return {
    overlayPeers(req: OverlayPeersRequest, ctx: HandlerContext) {
      requireAgent(ctx, sc);
      const self = toPlain(req.self);
      if (self === undefined || self.node === "") throw new ConnectError("missing overlay member", Code.InvalidArgument);
      if (!c.state.nodes.has(self.node)) throw new ConnectError(`Invalid node name specified: ${self.node}`, Code.NotFound);
      const joined = announce(registry, self, sc.now());
      if (!joined.ok) throw new ConnectError(joined.error.message, Code.FailedPrecondition);
      return { members: liveMembers(registry, sc.now(), isDown), keepaliveSec: OVERLAY_KEEPALIVE_SEC, refreshIntervalMs: OVERLAY_REFRESH_MS };
    },
  };
}
